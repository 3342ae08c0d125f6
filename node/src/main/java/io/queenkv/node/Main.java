package io.queenkv.node;

import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.identity.IdentityException;

/**
 * Starts one node from its {@code QUEEN_KV_*} environment; stops cleanly on SIGTERM. Exit codes:
 * {@value #EXIT_CONFIG} a bad setting, {@value #EXIT_DATA_DIR} a data dir of another cluster or
 * member (or unreadable), {@value #EXIT_START} any other start-up failure.
 */
public final class Main {
    static final int EXIT_START = 1, EXIT_CONFIG = 2, EXIT_DATA_DIR = 3;

    /** The JVM property that sizes the common pool; {@link #asyncPoolWithThreads()} sets it when not given. */
    static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

    private Main() {}

    public static void main(String[] args) throws Exception {
        asyncPoolWithThreads();
        NodeConfig config;
        try {
            config = NodeConfig.fromEnv(System.getenv());
        } catch (NodeConfig.ConfigException e) {
            System.err.println("queen-kv: " + e.getMessage());
            System.exit(EXIT_CONFIG);
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
}
