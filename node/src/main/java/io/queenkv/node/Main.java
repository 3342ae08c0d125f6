package io.queenkv.node;

import io.queenkv.node.config.NodeConfig;

/** Starts one node from its {@code QUEEN_KV_*} environment; stops cleanly on SIGTERM. */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        NodeConfig config;
        try {
            config = NodeConfig.fromEnv(System.getenv());
        } catch (NodeConfig.ConfigException e) {
            System.err.println("queen-kv: " + e.getMessage());
            System.exit(2);
            return;
        }
        Node node;
        try {
            node = new Node(config);
        } catch (NodeConfig.ConfigException e) { // e.g. a TLS file that cannot be used
            System.err.println("queen-kv: " + e.getMessage());
            System.exit(2);
            return;
        } catch (Exception e) {
            System.err.println("queen-kv: could not start: " + e);
            System.exit(1);
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
