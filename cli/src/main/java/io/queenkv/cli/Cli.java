package io.queenkv.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import io.queenkv.client.QueenKvException;
import io.queenkv.client.QueenKvRefusedException;
import io.queenkv.client.QueenKvUnavailableException;

/**
 * {@code queen-kv}: parses a command line, runs it, and answers its exit code ({@link Exit}). Results
 * go to {@code out}; an error is one line on {@code err}, never a stack trace. {@link Main} wraps
 * this with the process's streams and environment.
 */
public final class Cli {
    private final Map<String, String> env;
    private final InputStream stdin;
    private final PrintStream out;
    private final PrintStream err;

    public Cli(Map<String, String> env, InputStream stdin, PrintStream out, PrintStream err) {
        this.env = Map.copyOf(env);
        this.stdin = stdin;
        this.out = out;
        this.err = err;
    }

    /** Runs one command line; answers the process exit code. */
    public int run(String... argv) {
        try {
            return execute(Args.of(argv)).code;
        } catch (CliFailure e) {
            return fail(e.exit, e.getMessage());
        } catch (QueenKvRefusedException e) {
            // A 429 is the SDK giving up after its retries: try again later, like a 503.
            if (e.status() == 429) return fail(Exit.UNAVAILABLE, "unavailable (rate_limited): over the tenant's rate limit; try again later");
            return fail(Exit.REFUSED, "refused (" + e.status() + " " + e.reason() + ")" + (e.detail() == null || e.detail().isEmpty() ? "" : ": " + e.detail()));
        } catch (QueenKvUnavailableException e) {
            return fail(Exit.UNAVAILABLE, "unavailable (" + e.reason() + "): " + e.getMessage() + rootCause(e));
        } catch (QueenKvException e) {
            return fail(Exit.UNAVAILABLE, "unavailable: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            // The SDK refuses bad arguments this way, before anything is sent.
            return fail(Exit.USAGE, e.getMessage());
        } catch (UncheckedIOException e) {
            return fail(Exit.FILE, e.getMessage());
        } catch (RuntimeException e) {
            return fail(Exit.INTERNAL, "internal error: " + e);
        } finally {
            out.flush();
        }
    }

    private Exit execute(Args args) {
        boolean help = args.flag("--help", "-h");
        boolean version = args.flag("--version");
        Output output = new Output(args.value("--output", "-o").map(Output.Format::parse).orElse(Output.Format.TABLE), out);
        Optional<String> endpoints = args.value("--endpoints"), token = args.value("--token"), ca = args.value("--ca");
        if (version) {
            output.text("queen-kv " + version() + " (Java " + Runtime.version() + ")\n");
            return Exit.OK;
        }
        if (help) {
            output.text(help(args.positionals()));
            return Exit.OK;
        }
        Commands.Spec spec = Commands.take(args);
        Command command = spec.parse(args);
        try (Connection connection = new Connection(() -> Connection.Target.from(endpoints, token, ca, env))) {
            return command.run(new Context(output, stdin, connection));
        }
    }

    /** What failed underneath (a refused connection, an untrusted certificate), unless the message says it already. */
    private static String rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = root == e ? null : root.getMessage();
        return m == null || m.isBlank() || e.getMessage().contains(m) ? "" : " (" + m + ")";
    }

    private int fail(Exit exit, String message) {
        err.println("queen-kv: " + oneLine(message));
        err.flush();
        return exit.code;
    }

    private static String oneLine(String message) {
        return message == null ? "" : message.replaceAll("\\s*\\R\\s*", " ").trim();
    }

    /** The help of the command the words name, of a group ({@code member}), or of everything. */
    static String help(List<String> words) {
        Optional<Commands.Spec> spec = Commands.find(words);
        if (spec.isPresent()) return spec.get().help();
        List<Commands.Spec> group = words.isEmpty() ? List.of() : Commands.group(words.get(0));
        if (!group.isEmpty()) {
            StringBuilder b = new StringBuilder();
            for (Commands.Spec s : group) b.append(s.help()).append('\n');
            return b.toString();
        }
        return overview();
    }

    private static String overview() {
        StringBuilder b = new StringBuilder();
        b.append("queen-kv ").append(version()).append(": the command-line client of Queen KV\n\n")
                .append("usage: queen-kv [global options] <command> [arguments]\n\nCommands:\n");
        for (Commands.Spec s : Commands.ALL)
            b.append("  ").append(s.name()).append(s.synopsis().isEmpty() ? "" : " " + s.synopsis()).append('\n')
                    .append("      ").append(s.summary()).append('\n');
        b.append("""

                Global options (a flag wins over its variable):
                  --endpoints URL,...  QUEEN_KV_ENDPOINTS  the nodes to call, in order, failing over to the next
                                                           (default http://127.0.0.1:6632; https:// for TLS)
                  --token TOKEN        QUEEN_KV_TOKEN      the bearer token (admin commands need an admin token);
                                                           prefer the variable: a flag shows in the process list
                  --ca FILE            QUEEN_KV_CA_FILE    PEM file of the CA certificates to trust for https://
                                                           (default: the JDK's trust store); host names are checked
                  -o, --output table|json                  a table (default), or JSON in the node's shapes
                  -h, --help                               this help; queen-kv <command> --help for one command
                  --version                                the CLI's version

                Exit codes:
                """);
        for (Exit e : Exit.values()) b.append(wrapped(String.format("  %-3d ", e.code), e.meaning));
        b.append("""

                An error is one line on stderr. A value is JSON; a value or key that starts with - goes after --.
                """);
        return b.toString();
    }

    /** {@code text} after {@code lead}, wrapped at 100 columns, continuation lines indented as far as the lead. */
    static String wrapped(String lead, String text) {
        StringBuilder b = new StringBuilder(lead);
        int column = lead.length();
        for (String word : text.split(" ")) {
            if (column > lead.length() && column + 1 + word.length() > 100) {
                b.append('\n').append(" ".repeat(lead.length()));
                column = lead.length();
            } else if (column > lead.length()) {
                b.append(' ');
                column++;
            }
            b.append(word);
            column += word.length();
        }
        return b.append('\n').toString();
    }

    static String version() {
        Properties p = new Properties();
        try (InputStream in = Cli.class.getResourceAsStream("cli-version.properties")) {
            if (in != null) p.load(in);
        } catch (IOException e) {
            // fall through to "unknown"
        }
        return p.getProperty("version", "unknown");
    }
}
