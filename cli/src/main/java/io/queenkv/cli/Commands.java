package io.queenkv.cli;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import io.queenkv.client.Lifetime;

/** Every command: its words, its synopsis and help, and how its arguments become a {@link Command}. */
final class Commands {
    private Commands() {}

    /** One command: {@code name} is its words ({@code "member add"}). */
    record Spec(String name, String synopsis, String summary, String details, Function<Args, Command> parser) {
        Command parse(Args args) {
            Command command = parser.apply(args);
            args.end(name);
            return command;
        }

        List<String> words() {
            return List.of(name.split(" "));
        }

        String help() {
            return "usage: queen-kv " + name + (synopsis.isEmpty() ? "" : " " + synopsis) + "\n\n" + summary + ".\n"
                    + (details.isEmpty() ? "" : "\n" + details + "\n")
                    + "\nGlobal options (--endpoints, --token, --ca, -o) and exit codes: queen-kv --help\n";
        }
    }

    private static final String LIFETIME = """
              --ttl DURATION    the key lives this long: 45s, 2m, 12h, 30d, 1h30m
              --forever         the key never expires
            One of the two is required: every write declares its lifetime.""";

    static final List<Spec> ALL = List.of(
            new Spec("get", "<ns> <key>", "Reads one key (a linearizable read)", """
                    Prints the key, its version, when it expires and was last written, and its value (compact
                    JSON). An absent or expired key prints nothing and exits 1 (with -o json, {"found":false,…}).""",
                    a -> new KvCommands.Get(a.take("<ns>"), a.take("<key>"))),
            new Spec("put", "<ns> <key> <json|-> (--ttl DURATION | --forever) [--expect N | --expect-absent]",
                    "Writes a JSON value; - reads it from stdin", LIFETIME + """

                      --expect N        compare-and-swap: write only if the key is at version N (exit 5 if it is
                                        at another, 1 if it is absent)
                      --expect-absent   write only if the key does not exist (exit 5 if it does)
                    The value is JSON: a string keeps its quotes (queen-kv put orders 9137 '"paid"'), a value
                    starting with - goes after -- (queen-kv put n k --forever -- -5).""",
                    a -> {
                        Lifetime lifetime = lifetime(a);
                        Long expect = expect(a, true);
                        return new KvCommands.Put(a.take("<ns>"), a.take("<key>"), KvCommands.Value.parse(a.take("<json|->")), lifetime, expect);
                    }),
            new Spec("delete", "<ns> <key> [--expect N]", "Deletes a key", """
                      --expect N        delete only if the key is at version N (exit 5 if it is at another)
                    Deleting an absent key exits 1.""",
                    a -> {
                        Long expect = expect(a, false);
                        return new KvCommands.Delete(a.take("<ns>"), a.take("<key>"), expect);
                    }),
            new Spec("incr", "<ns> <key> [--by N] [--min N] [--max N] (--ttl DURATION | --forever)",
                    "Adds to the number at a key (0 when absent) and prints the new value", """
                      --by N            what to add: an integer or a decimal, may be negative (default 1)
                      --min N, --max N  not applied past these bounds (exit 5); nothing is written then
                    """ + LIFETIME + "\nThe lifetime applies when the counter is created; a live counter keeps its expiry.",
                    a -> {
                        Number by = a.value("--by").map(v -> number("--by", v)).orElse(1L);
                        Number min = a.value("--min").map(v -> number("--min", v)).orElse(null);
                        Number max = a.value("--max").map(v -> number("--max", v)).orElse(null);
                        Lifetime lifetime = lifetime(a);
                        return new KvCommands.Incr(a.take("<ns>"), a.take("<key>"), by, min, max, lifetime);
                    }),
            new Spec("list", "<ns> <prefix> [--limit N] [--after KEY] [--keys-only]",
                    "Lists the live keys starting with a prefix, in key order, fetching page after page", """
                      --limit N         at most N keys (default: all); if more follow, -o json says
                                        "truncated":true and "nextAfter", the key to continue --after
                      --after KEY       start after this key (exclusive)
                      --keys-only       leave the values out""",
                    a -> {
                        Integer limit = a.value("--limit").map(v -> (int) wholeNumber("--limit", v, 1, Integer.MAX_VALUE - 1)).orElse(null);
                        Optional<String> after = a.value("--after");
                        boolean keysOnly = a.flag("--keys-only");
                        String ns = a.take("<ns>"), prefix = a.take("<prefix>");
                        if (prefix.isEmpty()) throw CliFailure.usage("<prefix> must not be empty");
                        return new KvCommands.ListKeys(ns, prefix, limit, after.orElse(null), keysOnly);
                    }),
            new Spec("batch", "[FILE|-] [--idempotency-key KEY]",
                    "Sends the ops in FILE (or stdin, the default) as one atomic call", """
                    FILE holds the body of POST /api/v1/kv: a JSON array of ops, or {"operations":[…]}, e.g.
                      [{"op":"put","ns":"orders","key":"9137","value":{"status":"paid"},"ttlSeconds":2592000,"expect":0,"required":true},
                       {"op":"incr","ns":"stats","key":"orders","delta":1,"forever":true}]
                    Ops: get, getMany, getPrefix, put, putIfAbsent, delete, incr, check, with the fields of the HTTP
                    API. A call with writes is one Raft log entry. Prints one line per op (and per row read).
                    Exit 0 when the call completed, even if an op without "required" was not applied; exit 5 (1 for
                    an absent key) when a required op was not applied and nothing was written.
                      --idempotency-key KEY   send the call with this key instead of a generated one: repeating it
                                              (after an exit 4, whose write outcome is unknown) applies it once""",
                    a -> {
                        Optional<String> key = a.value("--idempotency-key");
                        if (key.isPresent() && (key.get().isEmpty() || key.get().length() > 256))
                            throw CliFailure.usage("--idempotency-key has 1 to 256 characters");
                        return new KvCommands.BatchCall(a.takeOptional().orElse(null), key.orElse(null));
                    }),
            new Spec("cluster status", "", "Shows the first answering node's view of the cluster", """
                    Its role, the leader, the term, commit and applied indexes, its membership state and the members
                    with their roles and addresses. -o json prints GET /api/v1/cluster as the node answered it.""",
                    a -> new AdminCommands.ClusterStatus()),
            new Spec("member add", "<id> <raftAddress> <httpAddress>", "Adds a node to the cluster (admin)", """
                    Start the node first with an id that is not in its QUEEN_KV_PEERS (same QUEEN_KV_CLUSTER_ID):
                    it waits with no group; this gives it the group, and the leader brings it up to date before
                    it votes. The addresses are host:port on one host, e.g.
                      queen-kv member add n4 10.0.0.4:6634 10.0.0.4:6632""",
                    a -> new AdminCommands.MemberAdd(a.take("<id>"), a.take("<raftAddress>"), a.take("<httpAddress>"))),
            new Spec("member remove", "<id>", "Removes a member from the cluster (admin)", """
                    Leadership moves off the member first. The removed process keeps running until it is stopped.
                    The last member cannot be removed.""",
                    a -> new AdminCommands.MemberRemove(a.take("<id>"))),
            new Spec("leader transfer", "[ID]", "Hands leadership to member ID, or to any other member (admin)", "",
                    a -> new AdminCommands.LeaderTransfer(a.takeOptional().orElse(null))),
            new Spec("settings get", "", "Shows the cluster-wide settings in force and the log index that set them", "",
                    a -> new AdminCommands.SettingsGet()),
            new Spec("settings set", "NAME=VALUE...", "Commits new values for cluster-wide settings (admin)", """
                    Committed through the Raft log: every node switches at the same index. Settings not named keep
                    their value. Names: maxOpsPerCall, maxKeysPerCall, maxValueBytes, maxBodyBytes, writeRate,
                    readRate (README "Configuration" gives their bounds), e.g.
                      queen-kv settings set maxValueBytes=32768 writeRate=500""",
                    Commands::settingsSet),
            new Spec("backup", "<file>", "Streams a backup of the whole state into a new file (admin)", """
                    GET /api/v1/admin/backup: every acknowledged write, at one log index, in the node's snapshot
                    format. The download is checked before it is kept (format, CRC32C, the key count the node
                    sent), so <file> is a sound backup or is not written. <file> must not exist. Exit 6 when the
                    file cannot be written or the download fails its check.""",
                    a -> new AdminCommands.Backup(Path.of(a.take("<file>")))),
            new Spec("restore", "<file>", "Checks a backup file offline and prints how to start a cluster from it", """
                    Checks the file as a node will (format, CRC32C) and prints the command that starts a new
                    cluster from it: QUEEN_KV_RESTORE_FROM=<file> on every initial member. It connects to
                    nothing. Exit 6 when the file is damaged or not a backup.""",
                    a -> new AdminCommands.Restore(Path.of(a.take("<file>")))));

    /** The command a command line names, its words taken from {@code args}. */
    static Spec take(Args args) {
        Spec spec = find(args.positionals()).orElseThrow(() -> CliFailure.usage(unknown(args.positionals())));
        for (int i = 0; i < spec.words().size(); i++) args.take("command");
        return spec;
    }

    /** The command {@code words} start with, the longest that matches. */
    static Optional<Spec> find(List<String> words) {
        Spec best = null;
        for (Spec s : ALL) {
            List<String> w = s.words();
            if (words.size() >= w.size() && words.subList(0, w.size()).equals(w) && (best == null || w.size() > best.words().size())) best = s;
        }
        return Optional.ofNullable(best);
    }

    /** The commands of a group word ({@code member} → member add, member remove). */
    static List<Spec> group(String word) {
        return ALL.stream().filter(s -> s.words().size() > 1 && s.words().get(0).equals(word)).toList();
    }

    private static String unknown(List<String> words) {
        if (words.isEmpty()) return "no command given (queen-kv --help lists them)";
        List<Spec> group = group(words.get(0));
        if (!group.isEmpty()) {
            Set<String> subs = new LinkedHashSet<>();
            group.forEach(s -> subs.add(s.words().get(1)));
            return words.get(0) + " needs one of: " + String.join(", ", subs)
                    + (words.size() > 1 ? " (not " + words.get(1) + ")" : "");
        }
        return "unknown command " + words.get(0) + " (queen-kv --help lists the commands)";
    }

    // ---- argument values ----------------------------------------------------------------------------

    private static Lifetime lifetime(Args a) {
        Optional<String> ttl = a.value("--ttl");
        boolean forever = a.flag("--forever");
        if (ttl.isPresent() == forever)
            throw CliFailure.usage("give the key's lifetime: either --ttl DURATION (45s, 2m, 12h, 30d, 1h30m) or --forever");
        if (forever) return Lifetime.forever();
        try {
            return Lifetime.ttl(ttl.get());
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw CliFailure.usage("--ttl: " + e.getMessage());
        }
    }

    /** {@code --expect N}, or with {@code absentFlag} also {@code --expect-absent} (= expect 0); null if neither. */
    private static Long expect(Args a, boolean absentFlag) {
        Optional<String> n = a.value("--expect");
        boolean absent = absentFlag && a.flag("--expect-absent");
        if (n.isPresent() && absent) throw CliFailure.usage("--expect and --expect-absent exclude each other");
        if (absent) return 0L;
        return n.map(v -> wholeNumber("--expect", v, 0, Long.MAX_VALUE)).orElse(null);
    }

    private static long wholeNumber(String option, String text, long min, long max) {
        long v;
        try {
            v = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw CliFailure.usage(option + " takes a whole number, not " + text);
        }
        if (v < min || v > max) throw CliFailure.usage(option + " must be at least " + min + ", not " + text);
        return v;
    }

    /** An integer as a Long, anything else as its exact decimal. */
    private static Number number(String option, String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException notLong) {
            try {
                return new BigDecimal(text.trim());
            } catch (NumberFormatException e) {
                throw CliFailure.usage(option + " takes a number, not " + text);
            }
        }
    }

    private static Command settingsSet(Args a) {
        List<AdminCommands.Assignment> assignments = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (Optional<String> next = a.takeOptional(); next.isPresent(); next = a.takeOptional()) {
            String s = next.get();
            int eq = s.indexOf('=');
            if (eq <= 0) throw CliFailure.usage("settings set takes NAME=VALUE, not " + s);
            String name = s.substring(0, eq);
            if (!names.add(name)) throw CliFailure.usage(name + " is given more than once");
            try {
                assignments.add(new AdminCommands.Assignment(name, Long.parseLong(s.substring(eq + 1).trim())));
            } catch (NumberFormatException e) {
                throw CliFailure.usage(name + " takes a whole number, not " + s.substring(eq + 1));
            }
        }
        if (assignments.isEmpty()) throw CliFailure.usage("settings set needs at least one NAME=VALUE");
        return new AdminCommands.SettingsSet(assignments);
    }
}
