package io.queenkv.node;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;

import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.identity.IdentityException;
import io.queenkv.node.kv.Setting;

/**
 * Starts one node from its {@code QUEEN_KV_*} environment; stops cleanly on SIGTERM. Exit codes:
 * {@value #EXIT_CONFIG} a bad setting, {@value #EXIT_DATA_DIR} a data dir of another cluster or
 * member (or unreadable), {@value #EXIT_START} any other start-up failure.
 */
public final class Main {
    static final int EXIT_START = 1, EXIT_CONFIG = 2, EXIT_DATA_DIR = 3;

    /** How long {@code --train} drives its cluster by default: long enough on two cores for the JIT to compile the hot paths. */
    static final long TRAINING_SECONDS = 60;

    /** The JVM property that sizes the common pool; {@link #asyncPoolWithThreads()} sets it when not given. */
    static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

    /** The most and least of the heap left free after a collection cycle; {@link #heapFollowsLiveData()} sets them when not given. */
    static final int MAX_HEAP_FREE_PERCENT = 30, MIN_HEAP_FREE_PERCENT = 10;

    private Main() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            switch (args[0]) {
                case "--version" -> System.out.println("queen-kv-node " + NodeVersion.version() + " (Java " + NodeVersion.java() + ")");
                case "--help", "-h" -> System.out.print(usage());
                case "--train" -> System.exit(train(args));
                default -> {
                    System.err.println("queen-kv: unknown argument " + args[0] + " (a node takes its settings from QUEEN_KV_* variables; see --help)");
                    System.exit(EXIT_CONFIG);
                }
            }
            return;
        }
        asyncPoolWithThreads();
        heapFollowsLiveData();
        NodeConfig config;
        try {
            config = NodeConfig.fromEnv(System.getenv());
        } catch (NodeConfig.ConfigException e) {
            System.err.println("queen-kv: " + e.getMessage());
            System.exit(EXIT_CONFIG);
            return;
        }
        String taken = takenPort(config);
        if (taken != null) {
            System.err.println("queen-kv: " + taken);
            System.exit(EXIT_START);
            return;
        }
        Node node;
        try {
            node = new Node(config);
        } catch (IdentityException e) {
            System.err.println("queen-kv: refusing to start: " + e.getMessage());
            System.exit(EXIT_DATA_DIR);
            return;
        } catch (NodeConfig.ConfigException e) { // e.g. a TLS file that cannot be used
            System.err.println("queen-kv: " + e.getMessage());
            System.exit(EXIT_CONFIG);
            return;
        } catch (Exception e) {
            System.err.println("queen-kv: could not start: " + e);
            System.exit(EXIT_START);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                System.err.println("queen-kv: error while stopping: " + e);
            }
        }, "queen-kv-shutdown"));
    }

    /** {@code --train [seconds]}: see {@link Training}; exit code 0 when the training cluster answered calls and refused at most one in a hundred. */
    static int train(String[] args) throws Exception {
        long seconds;
        try {
            seconds = args.length > 1 ? Long.parseLong(args[1]) : TRAINING_SECONDS;
        } catch (NumberFormatException e) {
            seconds = -1;
        }
        if (seconds < 1 || seconds > 3_600 || args.length > 2) {
            System.err.println("queen-kv: --train takes one optional argument, the seconds to train (1 to 3600, default " + TRAINING_SECONDS + ")");
            return EXIT_CONFIG;
        }
        asyncPoolWithThreads();
        try {
            Training.Counts calls = Training.run(java.time.Duration.ofSeconds(seconds));
            System.out.println("queen-kv: trained for " + seconds + " s: " + calls.answered() + " calls answered, " + calls.refused() + " refused"
                    + (calls.refused() == 0 ? "" : " (by status: " + calls.refusedByStatus() + ")"));
            return 0;
        } catch (IOException e) {
            System.err.println("queen-kv: training failed: " + e.getMessage());
            return EXIT_START;
        }
    }

    /**
     * Which of the node's ports another process holds, as the one line to print, or null. Checked
     * before the data dir is touched, so a node that cannot listen leaves nothing behind.
     */
    static String takenPort(NodeConfig config) {
        String[][] ports = {{"HTTP", "QUEEN_KV_HTTP_PORT", Integer.toString(config.httpPort())},
                {"Raft", "QUEEN_KV_RAFT_PORT", Integer.toString(config.raftPort())}};
        for (String[] port : ports) {
            try (ServerSocket probe = new ServerSocket()) {
                probe.setReuseAddress(true);
                probe.bind(new InetSocketAddress(config.bindAddress(), Integer.parseInt(port[2])));
            } catch (IOException e) {
                return "the " + port[0] + " port " + config.bindAddress() + ":" + port[2] + " (" + port[1]
                        + ") cannot be listened on: " + e.getMessage() + "; stop what holds it or choose another port";
            }
        }
        return null;
    }

    /** What {@code --help} prints: how to start a node, and every variable it reads (the settings from their table). */
    static String usage() {
        StringBuilder b = new StringBuilder();
        b.append("queen-kv-node ").append(NodeVersion.version()).append(": one node of a Queen KV cluster\n\n")
                .append("usage: java -jar queen-kv-node.jar [--help | --version | --train [seconds]]\n\n")
                .append("A node takes no arguments: it reads QUEEN_KV_* environment variables, serves HTTP and Raft,\n")
                .append("and stops cleanly on SIGTERM. Exit codes: 2 a bad setting, 3 a data dir of another cluster or\n")
                .append("member, 1 any other start-up failure.\n")
                .append("--train runs a three-node cluster in this JVM on loopback (temporary data) under a mix of calls\n")
                .append("for that many seconds (default " + TRAINING_SECONDS + ") and exits; run with -XX:AOTCacheOutput=FILE on JDK 25+,\n")
                .append("it leaves the ahead-of-time cache nodes start with -XX:AOTCache=FILE (README \"Java runtime\").\n\n")
                .append("Identity and peers:\n");
        String[][] rows = {
                {"QUEEN_KV_NODE_ID", "n1", "this member's id"},
                {"QUEEN_KV_HOST", "127.0.0.1", "the host peers and clients reach this node at"},
                {"QUEEN_KV_BIND_ADDRESS", "127.0.0.1 (0.0.0.0 with TLS)", "the address both ports listen on"},
                {"QUEEN_KV_DATA_DIR", "data", "the Raft log, snapshots and the member stamp"},
                {"QUEEN_KV_PEERS", "(none: a lone node)", "id=host:raftPort:httpPort,... of the initial members"},
                {"QUEEN_KV_CLUSTER_ID", "(generated for a lone node)", "required with peers; the Raft group derives from it"},
                {"QUEEN_KV_INITIAL_CLUSTER_STATE", "new", "new: may create the cluster; existing: only joins it"},
                {"QUEEN_KV_TOKENS_FILE", "(none: auth off)", "sha256-of-token tenant role, one per line; re-read on change"},
                {"QUEEN_KV_METRICS_REQUIRE_TOKEN", "false", "whether /metrics needs a token"},
                {"QUEEN_KV_TLS_CERT_FILE, _KEY_FILE, _CA_FILE", "(none: no TLS)", "PEM files: mutual TLS on Raft, HTTPS only"},
                {"QUEEN_KV_RESTORE_FROM", "(none)", "a backup a new cluster is created from (every initial member)"},
                {"QUEEN_KV_LOG_FORMAT", "text (json in the image)", "text, or json: one JSON object per line, to stderr"},
                {"QUEEN_KV_LOG_LEVEL", "info", "error, warn, info, debug or trace"}};
        for (String[] row : rows) b.append(String.format("  %-44s %-30s %s%n", row[0], row[1], row[2]));
        b.append("\nSettings (live ones are the seed of a new cluster; change them with PUT /api/v1/admin/settings):\n");
        for (Setting s : Setting.values())
            b.append(String.format("  %-44s %-30s %d..%d, %s%n", s.env, Long.toString(s.defaultValue), s.min, s.max,
                    s.applies == Setting.Applies.LIVE ? "live" : "at start"));
        b.append("\nMore: README.md in the repository (Configuration, Limits and timeouts, Transport security).\n");
        return b.toString();
    }

    /**
     * On one or two CPUs the JVM's common pool has a parallelism of 1, and then every asynchronous
     * stage of a {@code CompletableFuture} without an executor starts a thread of its own: Ratis
     * completes each log write that way, so a node on two cores (or in a pod limited to two) started
     * a thread per write. A pool of at least four threads keeps those stages on pooled threads. Runs
     * before anything touches the pool; a value given with {@code -D} wins.
     */
    static void asyncPoolWithThreads() {
        if (System.getProperty(COMMON_POOL_PARALLELISM) == null)
            System.setProperty(COMMON_POOL_PARALLELISM, Integer.toString(Math.max(4, Runtime.getRuntime().availableProcessors())));
    }

    /**
     * A node's heap is mostly its rows, which stay; what a burst of writes made the JVM add to the
     * heap should go back once a collection cycle finds it free. The JVM's defaults keep up to 70 %
     * of the heap free (a node loaded with a million keys held twice its live data); a node keeps at
     * most {@value #MAX_HEAP_FREE_PERCENT} % (measured in README "Benchmarks": RSS of three nodes 4.4–4.5
     * GiB → 3.6–3.8 GiB, puts within the noise). Both flags are manageable, so they are set here
     * rather than in every start script; a value given on the command line wins, and a JVM without
     * them (not HotSpot) runs on its own defaults.
     */
    static void heapFollowsLiveData() {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (vm == null) return;
            if (vm.getVMOption("MinHeapFreeRatio").getOrigin() != VMOption.Origin.DEFAULT
                    || vm.getVMOption("MaxHeapFreeRatio").getOrigin() != VMOption.Origin.DEFAULT) return;
            // The minimum first: the JVM refuses a maximum below the minimum in force (default 40).
            vm.setVMOption("MinHeapFreeRatio", Integer.toString(MIN_HEAP_FREE_PERCENT));
            vm.setVMOption("MaxHeapFreeRatio", Integer.toString(MAX_HEAP_FREE_PERCENT));
        } catch (RuntimeException | LinkageError e) {
            // Not HotSpot, a runtime without jdk.management, or flags not manageable there: the JVM's defaults stay.
        }
    }
}
