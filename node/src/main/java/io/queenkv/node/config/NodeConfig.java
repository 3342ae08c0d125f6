package io.queenkv.node.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.queenkv.node.identity.MemberIdentity;
import io.queenkv.node.kv.Setting;
import io.queenkv.node.kv.Settings;

/**
 * One node's configuration, read from {@code QUEEN_KV_*} environment variables. Every problem is
 * collected and reported at once, so a bad deployment fails at start-up with one clear message.
 */
public record NodeConfig(String nodeId, String host, String bindAddress, int httpPort, int raftPort, List<Peer> peers,
                         Path dataDir, Settings seedSettings, Path tokensFile, long snapshotEveryEntries,
                         String clusterId, InitialClusterState initialClusterState, TlsFiles tls,
                         boolean metricsRequireToken, CallBounds callBounds, Path restoreFrom) {
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

    /**
     * The PEM files of transport security (README "Transport security"): this node's certificate
     * chain, its PKCS#8 private key, and the cluster CA bundle. Null in {@link NodeConfig#tls()}
     * when TLS is off.
     */
    public record TlsFiles(Path certificate, Path privateKey, Path ca) {}

    /** How many calls may be in progress on this node: per tenant, and in all. */
    public record CallBounds(int perTenant, int perNode) {}

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

    /** True when the Raft port takes unauthenticated peers from other hosts: no TLS and a non-loopback bind address. */
    public boolean raftOpenToOtherHosts() {
        if (tls != null) return false;
        try {
            return !java.net.InetAddress.getByName(bindAddress).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return true;
        }
    }

    /**
     * Whether this node creates its part of a new cluster from {@link #restoreFrom()}: a backup is
     * named, the cluster is being created ({@code new}) and this node is one of the initial members.
     * Otherwise the variable is ignored (an operator leaves it set on pods that start later).
     */
    public boolean restoresOnCreation() {
        return restoreFrom != null && initialClusterState == InitialClusterState.NEW && initialMember();
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
        TlsFiles tls = tlsFiles(env, r.problems);
        // Without TLS anyone who reaches the Raft port is a peer: listen on loopback unless told otherwise.
        String bindAddress = r.string("QUEEN_KV_BIND_ADDRESS", tls == null ? "127.0.0.1" : "0.0.0.0");
        int httpPort = (int) r.setting(Setting.HTTP_PORT);
        int raftPort = (int) r.setting(Setting.RAFT_PORT);
        if (httpPort == raftPort && httpPort > 0) r.problems.add("QUEEN_KV_HTTP_PORT and QUEEN_KV_RAFT_PORT must differ");
        Path dataDir = Path.of(r.string("QUEEN_KV_DATA_DIR", "data"));
        String tokens = env.get("QUEEN_KV_TOKENS_FILE");
        String metricsToken = r.string("QUEEN_KV_METRICS_REQUIRE_TOKEN", "false");
        if (!metricsToken.equals("true") && !metricsToken.equals("false"))
            r.problems.add("QUEEN_KV_METRICS_REQUIRE_TOKEN=" + metricsToken + " is neither true nor false");
        long snapshotEvery = r.setting(Setting.SNAPSHOT_EVERY);
        CallBounds callBounds = new CallBounds((int) r.setting(Setting.MAX_CALLS_PER_TENANT), (int) r.setting(Setting.MAX_CALLS_PER_NODE));
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

        // A backup to create the cluster from: used only while the cluster is created (README "Backup and restore").
        Path restoreFrom = null;
        String restore = env.get("QUEEN_KV_RESTORE_FROM");
        if (restore != null && !restore.isBlank()) {
            restoreFrom = Path.of(restore.trim());
            if (!Files.isRegularFile(restoreFrom)) r.problems.add("QUEEN_KV_RESTORE_FROM=" + restoreFrom + " is not a file");
            else if (!Files.isReadable(restoreFrom)) r.problems.add("QUEEN_KV_RESTORE_FROM=" + restoreFrom + " is not readable");
        }

        // Read by logging/NodeLogging before anything else runs; checked here so a typo stops the start.
        for (var logging : Map.of(io.queenkv.node.logging.NodeLogging.FORMAT, io.queenkv.node.logging.NodeLogging.FORMATS,
                io.queenkv.node.logging.NodeLogging.LEVEL, io.queenkv.node.logging.NodeLogging.LEVELS).entrySet()) {
            String v = env.get(logging.getKey());
            if (v != null && !v.isBlank() && !logging.getValue().contains(v.trim().toLowerCase(java.util.Locale.ROOT)))
                r.problems.add(logging.getKey() + "=" + v + " is not one of " + String.join(", ", logging.getValue()));
        }

        Settings seed = Settings.DEFAULTS;
        for (Setting setting : Setting.live()) seed = seed.with(setting, r.setting(setting));

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
                tokens == null || tokens.isBlank() ? null : Path.of(tokens), snapshotEvery, clusterId, initialState, tls,
                metricsToken.equals("true"), callBounds, restoreFrom);
    }

    private static final List<String> TLS_VARIABLES = List.of("QUEEN_KV_TLS_CERT_FILE", "QUEEN_KV_TLS_KEY_FILE", "QUEEN_KV_TLS_CA_FILE");

    /** All three TLS files or none; each one must be a readable file. */
    static TlsFiles tlsFiles(Map<String, String> env, List<String> problems) {
        List<String> set = TLS_VARIABLES.stream().filter(n -> env.get(n) != null && !env.get(n).isBlank()).toList();
        if (set.isEmpty()) return null;
        if (set.size() < TLS_VARIABLES.size()) {
            problems.add("TLS needs all of " + String.join(", ", TLS_VARIABLES) + "; set: " + String.join(", ", set));
            return null;
        }
        List<Path> files = new ArrayList<>();
        for (String name : TLS_VARIABLES) {
            Path file = Path.of(env.get(name).trim());
            if (!Files.isRegularFile(file)) problems.add(name + "=" + file + " is not a file");
            else if (!Files.isReadable(file)) problems.add(name + "=" + file + " is not readable");
            files.add(file);
        }
        return new TlsFiles(files.get(0), files.get(1), files.get(2));
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

        /** A row of the settings table from its variable: its default when unset, else a whole number in range. */
        long setting(Setting setting) {
            String v = env.get(setting.env);
            if (v == null || v.isBlank()) return setting.defaultValue;
            try {
                long n = Long.parseLong(v.trim());
                if (n < setting.min || n > setting.max) {
                    problems.add(setting.env + "=" + v + " is outside " + setting.min + ".." + setting.max);
                    return setting.defaultValue;
                }
                return n;
            } catch (NumberFormatException e) {
                problems.add(setting.env + "=" + v + " is not a whole number");
                return setting.defaultValue;
            }
        }
    }
}
