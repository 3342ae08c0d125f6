package io.queenkv.node.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.queenkv.node.identity.MemberIdentity;
import io.queenkv.node.kv.Settings;

/**
 * One node's configuration, read from {@code QUEEN_KV_*} environment variables. Every problem is
 * collected and reported at once, so a bad deployment fails at start-up with one clear message.
 */
public record NodeConfig(String nodeId, String host, String bindAddress, int httpPort, int raftPort, List<Peer> peers,
                         Path dataDir, Settings seedSettings, Path tokensFile, long snapshotEveryEntries,
                         String clusterId, InitialClusterState initialClusterState) {
    public static final int DEFAULT_HTTP_PORT = 6632;
    public static final int DEFAULT_RAFT_PORT = 6634;
    public static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");

    /** A member of the initial group: {@code id=host:raftPort:httpPort}. */
    public record Peer(String id, String host, int raftPort, int httpPort) {
        public String raftAddress() { return host + ":" + raftPort; }
        public String httpAddress() { return host + ":" + httpPort; }
    }

    /**
     * {@code QUEEN_KV_INITIAL_CLUSTER_STATE}: whether a member with an empty data dir may create the
     * cluster ({@code new}; it still never does when a peer already holds it) or must be admitted
     * by the leader of a cluster that exists ({@code existing}).
     */
    public enum InitialClusterState {
        NEW, EXISTING;

        public String envValue() { return name().toLowerCase(java.util.Locale.ROOT); }
    }

    public static final class ConfigException extends RuntimeException {
        public ConfigException(String message) { super(message); }
    }

    /** Whether this node is a cluster of itself: no other peer, and it is the one peer. */
    public boolean lone() {
        return peers.size() == 1 && peers.get(0).id().equals(nodeId);
    }

    /** Whether this node is one of the initial peers (else it waits to be added through the admin API). */
    public boolean initialMember() {
        return peers.stream().anyMatch(p -> p.id().equals(nodeId));
    }

    /** This node as a peer. */
    public Peer self() {
        return peers.stream().filter(p -> p.id().equals(nodeId)).findFirst()
                .orElse(new Peer(nodeId, host, raftPort, httpPort));
    }

    public static NodeConfig fromEnv(Map<String, String> env) {
        Reader r = new Reader(env);
        String nodeId = r.string("QUEEN_KV_NODE_ID", "n1");
        if (!NODE_ID.matcher(nodeId).matches()) r.problems.add("QUEEN_KV_NODE_ID must match " + NODE_ID.pattern());
        String host = r.string("QUEEN_KV_HOST", "127.0.0.1");
        String bindAddress = r.string("QUEEN_KV_BIND_ADDRESS", "0.0.0.0");
        int httpPort = r.port("QUEEN_KV_HTTP_PORT", DEFAULT_HTTP_PORT);
        int raftPort = r.port("QUEEN_KV_RAFT_PORT", DEFAULT_RAFT_PORT);
        if (httpPort == raftPort && httpPort > 0) r.problems.add("QUEEN_KV_HTTP_PORT and QUEEN_KV_RAFT_PORT must differ");
        Path dataDir = Path.of(r.string("QUEEN_KV_DATA_DIR", "data"));
        String tokens = env.get("QUEEN_KV_TOKENS_FILE");
        long snapshotEvery = r.number("QUEEN_KV_SNAPSHOT_EVERY", 10_000, 10, 100_000_000);
        String clusterId = env.get("QUEEN_KV_CLUSTER_ID") == null || env.get("QUEEN_KV_CLUSTER_ID").isBlank() ? null
                : env.get("QUEEN_KV_CLUSTER_ID").trim();
        if (clusterId != null && !MemberIdentity.CLUSTER_ID.matcher(clusterId).matches())
            r.problems.add("QUEEN_KV_CLUSTER_ID must match " + MemberIdentity.CLUSTER_ID.pattern());
        InitialClusterState initialState = InitialClusterState.NEW;
        String state = r.string("QUEEN_KV_INITIAL_CLUSTER_STATE", "new");
        switch (state) {
            case "new" -> initialState = InitialClusterState.NEW;
            case "existing" -> initialState = InitialClusterState.EXISTING;
            default -> r.problems.add("QUEEN_KV_INITIAL_CLUSTER_STATE=" + state + " is neither new nor existing");
        }

        Settings d = Settings.DEFAULTS;
        Settings seed = new Settings(
                (int) r.number("QUEEN_KV_MAX_OPS_PER_CALL", d.maxOpsPerCall(), 1, 1_000_000),
                (int) r.number("QUEEN_KV_MAX_KEYS_PER_CALL", d.maxKeysPerCall(), 1, Settings.KEYS_PER_CALL_CEILING),
                (int) r.number("QUEEN_KV_MAX_VALUE_BYTES", d.maxValueBytes(), 1, 256L * 1024 * 1024),
                r.number("QUEEN_KV_MAX_BODY_BYTES", d.maxBodyBytes(), 1024, Integer.MAX_VALUE - 8),
                (int) r.number("QUEEN_KV_WRITE_RATE", d.writeRate(), 1, 10_000_000),
                (int) r.number("QUEEN_KV_READ_RATE", d.readRate(), 1, 10_000_000));

        List<Peer> peers = parsePeers(env.get("QUEEN_KV_PEERS"), r.problems);
        if (peers.isEmpty()) peers = List.of(new Peer(nodeId, host, raftPort, httpPort));
        // A node listed in the peers listens where the list says; unset ports follow the list.
        for (Peer p : peers) {
            if (!p.id().equals(nodeId)) continue;
            if (env.get("QUEEN_KV_RAFT_PORT") == null) raftPort = p.raftPort();
            else if (p.raftPort() != raftPort) r.problems.add("QUEEN_KV_RAFT_PORT=" + raftPort + " but QUEEN_KV_PEERS gives " + nodeId + " Raft port " + p.raftPort());
            if (env.get("QUEEN_KV_HTTP_PORT") == null) httpPort = p.httpPort();
            else if (p.httpPort() != httpPort) r.problems.add("QUEEN_KV_HTTP_PORT=" + httpPort + " but QUEEN_KV_PEERS gives " + nodeId + " HTTP port " + p.httpPort());
        }

        if (!r.problems.isEmpty())
            throw new ConfigException("invalid configuration:\n  - " + String.join("\n  - ", r.problems));
        return new NodeConfig(nodeId, host, bindAddress, httpPort, raftPort, List.copyOf(peers), dataDir, seed,
                tokens == null || tokens.isBlank() ? null : Path.of(tokens), snapshotEvery, clusterId, initialState);
    }

    static List<Peer> parsePeers(String spec, List<String> problems) {
        List<Peer> peers = new ArrayList<>();
        if (spec == null || spec.isBlank()) return peers;
        Set<String> ids = new HashSet<>();
        for (String item : spec.split(",")) {
            String s = item.trim();
            if (s.isEmpty()) continue;
            int eq = s.indexOf('=');
            String[] addr = eq < 0 ? new String[0] : s.substring(eq + 1).split(":");
            if (eq <= 0 || addr.length != 3 || addr[0].isBlank()) {
                problems.add("QUEEN_KV_PEERS entry '" + s + "' is not id=host:raftPort:httpPort");
                continue;
            }
            String id = s.substring(0, eq);
            try {
                int raft = Integer.parseInt(addr[1]), http = Integer.parseInt(addr[2]);
                if (raft < 1 || raft > 65535 || http < 1 || http > 65535) throw new NumberFormatException();
                if (!ids.add(id)) problems.add("QUEEN_KV_PEERS names '" + id + "' twice");
                peers.add(new Peer(id, addr[0], raft, http));
            } catch (NumberFormatException e) {
                problems.add("QUEEN_KV_PEERS entry '" + s + "' has a port outside 1..65535");
            }
        }
        return peers;
    }

    private static final class Reader {
        final Map<String, String> env;
        final List<String> problems = new ArrayList<>();

        Reader(Map<String, String> env) { this.env = env; }

        String string(String name, String fallback) {
            String v = env.get(name);
            return v == null || v.isBlank() ? fallback : v.trim();
        }

        long number(String name, long fallback, long min, long max) {
            String v = env.get(name);
            if (v == null || v.isBlank()) return fallback;
            try {
                long n = Long.parseLong(v.trim());
                if (n < min || n > max) problems.add(name + "=" + v + " is outside " + min + ".." + max);
                return n;
            } catch (NumberFormatException e) {
                problems.add(name + "=" + v + " is not a whole number");
                return fallback;
            }
        }

        int port(String name, int fallback) {
            return (int) number(name, fallback, 1, 65535);
        }
    }
}
