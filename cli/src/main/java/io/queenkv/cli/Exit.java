package io.queenkv.cli;

/** The exit codes of {@code queen-kv}, for scripts; {@code --help} and the README list them from here. */
enum Exit {
    OK(0, "done"),
    NOT_FOUND(1, "not found: get of an absent key; delete, or a write with --expect N, of an absent key; "
            + "a batch aborted by a required op on an absent key"),
    USAGE(2, "usage: an unknown command or option, a missing or bad argument, a batch file that is not a call"),
    REFUSED(3, "refused by the node (a 4xx other than 429): the reason is printed, e.g. kv_bad_namespace, "
            + "unauthorized, forbidden, not_found"),
    UNAVAILABLE(4, "unavailable: no endpoint answered (connection refused, timeout, an untrusted certificate, 5xx "
            + "such as kv_no_leader, 429 after the retries); after a write the outcome is unknown"),
    NOT_APPLIED(5, "not applied: --expect or --expect-absent lost (another version, the key exists), incr past "
            + "--min/--max or on a non-number, a batch aborted by a required op"),
    FILE(6, "file: a local file cannot be read or written, or a backup file fails its check"),
    INTERNAL(70, "an error of the CLI itself (a bug: please report the message)");

    final int code;
    final String meaning;

    Exit(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }
}
