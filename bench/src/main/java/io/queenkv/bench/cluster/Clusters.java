package io.queenkv.bench.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The two kinds of cluster the benchmark starts, three members each on 127.0.0.1 with free ports.
 *
 * <p>Durability is the same on both: a write is acknowledged only after a majority has fsynced it.
 * etcd fsyncs its WAL before it acknowledges (its default; we pass no unsafe flag). Queen KV's Ratis
 * log worker forces each batch of appended entries to disk before it advances the flush index, and an
 * entry commits only once a majority's flush index has passed it (Ratis' defaults
 * {@code raft.server.log.unsafe-flush.enabled=false} and {@code async-flush.enabled=false}, which
 * ReplicatedKv leaves alone).
 */
public final class Clusters {
    private static final String HOST = "127.0.0.1";
    private static final int MEMBERS = 3;

    private Clusters() {}

    /** Three Queen KV nodes from {@code nodeJar}, run by {@code java}; rate limits raised out of the way (API.md: 1,000,000 calls/s). */
    public static LocalCluster queenKv(Path nodeJar, Path java, String heap, List<String> jvmOptions, Path baseDir) {
        List<Integer> ports = LocalCluster.freePorts(2 * MEMBERS);
        String clusterId = "bench-" + UUID.randomUUID();
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++)
            peers.add("n" + (i + 1) + "=" + HOST + ":" + ports.get(2 * i + 1) + ":" + ports.get(2 * i));
        String javaBin = java.toString();
        List<MemberSpec> members = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            String id = "n" + (i + 1);
            Path dataDir = baseDir.resolve(id).resolve("data");
            Map<String, String> env = new LinkedHashMap<>();
            env.put("QUEEN_KV_CLUSTER_ID", clusterId);
            env.put("QUEEN_KV_NODE_ID", id);
            env.put("QUEEN_KV_HOST", HOST);
            env.put("QUEEN_KV_BIND_ADDRESS", HOST);
            env.put("QUEEN_KV_HTTP_PORT", Integer.toString(ports.get(2 * i)));
            env.put("QUEEN_KV_RAFT_PORT", Integer.toString(ports.get(2 * i + 1)));
            env.put("QUEEN_KV_PEERS", String.join(",", peers));
            env.put("QUEEN_KV_DATA_DIR", dataDir.toString());
            env.put("QUEEN_KV_WRITE_RATE", "1000000");
            env.put("QUEEN_KV_READ_RATE", "1000000");
            // The load generator is one tenant with up to 256 calls in flight per node: above the default bound.
            env.put("QUEEN_KV_MAX_CALLS_PER_TENANT", "1024");
            env.put("QUEEN_KV_MAX_CALLS_PER_NODE", "1024");
            List<String> command = new ArrayList<>(List.of(javaBin, "-Xmx" + heap));
            command.addAll(jvmOptions);
            command.addAll(List.of("-jar", nodeJar.toString()));
            members.add(new MemberSpec(id, command, env, dataDir,
                    baseDir.resolve(id + ".log"), "http://" + HOST + ":" + ports.get(2 * i), "/readyz"));
        }
        return new LocalCluster(baseDir, members);
    }

    /**
     * Three etcd members from {@code etcdBinary}. The backend quota is raised to 8 GiB so a full run's
     * writes (etcd keeps every revision until a compaction, and the benchmark does not compact) never
     * trip the 2 GiB default alarm; snapshot count and every other setting are etcd's defaults.
     */
    public static LocalCluster etcd(Path etcdBinary, Path baseDir) {
        List<Integer> ports = LocalCluster.freePorts(2 * MEMBERS);
        String token = "bench-" + UUID.randomUUID();
        List<String> initial = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) initial.add("m" + (i + 1) + "=http://" + HOST + ":" + ports.get(2 * i + 1));
        List<MemberSpec> members = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            String name = "m" + (i + 1);
            Path dataDir = baseDir.resolve(name).resolve("data");
            String clientUrl = "http://" + HOST + ":" + ports.get(2 * i);
            String peerUrl = "http://" + HOST + ":" + ports.get(2 * i + 1);
            List<String> command = List.of(etcdBinary.toString(),
                    "--name", name,
                    "--data-dir", dataDir.toString(),
                    "--listen-client-urls", clientUrl,
                    "--advertise-client-urls", clientUrl,
                    "--listen-peer-urls", peerUrl,
                    "--initial-advertise-peer-urls", peerUrl,
                    "--initial-cluster", String.join(",", initial),
                    "--initial-cluster-token", token,
                    "--initial-cluster-state", "new",
                    "--quota-backend-bytes", Long.toString(8L << 30),
                    "--logger", "zap",
                    "--log-level", "warn");
            members.add(new MemberSpec(name, command, Map.of(), dataDir, baseDir.resolve(name + ".log"), clientUrl, "/health"));
        }
        return new LocalCluster(baseDir, members);
    }
}
