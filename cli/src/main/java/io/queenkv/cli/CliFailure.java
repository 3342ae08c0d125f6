package io.queenkv.cli;

/** Ends a command with an exit code and the one line to print on stderr. */
final class CliFailure extends RuntimeException {
    final Exit exit;

    CliFailure(Exit exit, String message) {
        super(message);
        this.exit = exit;
    }

    CliFailure(Exit exit, String message, Throwable cause) {
        super(message, cause);
        this.exit = exit;
    }

    static CliFailure usage(String message) {
        return new CliFailure(Exit.USAGE, message);
    }

    static CliFailure file(String message, Throwable cause) {
        return new CliFailure(Exit.FILE, message, cause);
    }
}
