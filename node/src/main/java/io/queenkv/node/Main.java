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

    private Main() {}

    public static void main(String[] args) throws Exception {
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
}
