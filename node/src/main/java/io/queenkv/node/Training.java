package io.queenkv.node;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.queenkv.node.config.NodeConfig;

/**
 * {@code --train}: a three-node cluster in this JVM, on loopback and a temporary data dir, driven
 * through its HTTP API with the calls users make (single-key and batch writes, reads, CAS, counters,
 * prefix pages, idempotent retries, a snapshot) until {@code duration} has passed; then everything
 * is stopped and deleted. Run under {@code -XX:AOTCacheOutput=...} (JDK 25+) it leaves the JVM an
 * ahead-of-time cache of the classes these paths load and the method profiles they gathered, so a
 * node started with {@code -XX:AOTCache=...} runs them compiled within seconds instead of after
 * minutes of JIT warm-up (README "Java runtime"). It proves nothing and keeps nothing.
 */
final class Training {
    private static final int MEMBERS = 3;
    private static final int IN_FLIGHT = 64;
    private static final String NS = "training";
    private static final String VALUE = "\"" + "v".repeat(254) + "\"";
    private static final String LARGE_VALUE = "\"" + "v".repeat(64 * 1024 - 2) + "\"";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<String> urls = new ArrayList<>();
    private final AtomicLong answered = new AtomicLong();
    /** Calls refused or failed, by status (-1: no answer). */
    private final Map<Integer, AtomicLong> refusedByStatus = new java.util.concurrent.ConcurrentSkipListMap<>();

    private Training() {}

    /** Calls answered 200, and calls refused or failed by status (-1: no answer). */
    record Counts(long answered, Map<Integer, Long> refusedByStatus) {
        long refused() {
            return refusedByStatus.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * Runs the training. Throws when the cluster could not be formed or refused more than one call in
     * a hundred: a cache trained on refusals would prepare the wrong paths.
     */
    static Counts run(Duration duration) throws Exception {
        Path dir = Files.createTempDirectory("queen-kv-training");
        List<Node> nodes = new ArrayList<>();
        try {
            Training t = new Training();
            for (Map<String, String> env : t.membersEnv(dir)) nodes.add(new Node(NodeConfig.fromEnv(env)));
            t.awaitReady(Duration.ofMinutes(2));
            return t.drive(duration);
        } finally {
            for (Node n : nodes) n.close();
            deleteTree(dir);
        }
    }

    private List<Map<String, String>> membersEnv(Path dir) throws IOException {
        int[] ports = freePorts(2 * MEMBERS);
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) peers.add("n" + (i + 1) + "=127.0.0.1:" + ports[2 * i + 1] + ":" + ports[2 * i]);
        String clusterId = "training-" + UUID.randomUUID();
        List<Map<String, String>> envs = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            Map<String, String> env = new HashMap<>();
            env.put("QUEEN_KV_CLUSTER_ID", clusterId);
            env.put("QUEEN_KV_NODE_ID", "n" + (i + 1));
            env.put("QUEEN_KV_HTTP_PORT", Integer.toString(ports[2 * i]));
            env.put("QUEEN_KV_RAFT_PORT", Integer.toString(ports[2 * i + 1]));
            env.put("QUEEN_KV_PEERS", String.join(",", peers));
            env.put("QUEEN_KV_DATA_DIR", dir.resolve("n" + (i + 1)).toString());
            // One tenant with 64 calls in flight: rates and call bounds out of the way, as a load test sets them.
            env.put("QUEEN_KV_WRITE_RATE", "1000000");
            env.put("QUEEN_KV_READ_RATE", "1000000");
            env.put("QUEEN_KV_MAX_CALLS_PER_TENANT", "1024");
            // Snapshots at the smallest allowed interval, so writing and installing them is trained too.
            env.put("QUEEN_KV_SNAPSHOT_EVERY", "1000");
            envs.add(env);
            urls.add("http://127.0.0.1:" + ports[2 * i]);
        }
        return envs;
    }

    private void awaitReady(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String url : urls) {
            while (send("GET", url + "/readyz", null) != 200) {
                if (System.nanoTime() > deadline) throw new IOException("the training cluster was not ready within " + timeout);
                Thread.sleep(100);
            }
        }
    }

    /** {@link #IN_FLIGHT} chains of calls, each sending its next call when the last one is answered. */
    private Counts drive(Duration duration) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int slot = 0; slot < IN_FLIGHT; slot++) {
            CompletableFuture<Void> chain = new CompletableFuture<>();
            next(slot, end, chain);
            chains.add(chain);
        }
        long snapshotAt = System.nanoTime() + duration.toNanos() / 2;
        while (System.nanoTime() < end) {
            if (snapshotAt > 0 && System.nanoTime() > snapshotAt) {
                for (String url : urls) send("POST", url + "/api/v1/admin/snapshot", "");
                snapshotAt = 0;
            }
            for (String url : urls) {
                send("GET", url + "/metrics", null);
                send("GET", url + "/api/v1/cluster", null);
            }
            Thread.sleep(1_000);
        }
        CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).join();
        Map<Integer, Long> byStatus = new java.util.TreeMap<>();
        refusedByStatus.forEach((status, n) -> byStatus.put(status, n.get()));
        Counts counts = new Counts(answered.get(), byStatus);
        if (counts.answered() == 0 || counts.refused() > counts.answered() / 100)
            throw new IOException("the training cluster answered " + counts.answered() + " calls and refused " + counts.refused()
                    + " (by status, -1 no answer: " + byStatus + ")");
        return counts;
    }

    /** Sends slot's next call, counts its answer, and so on until {@code end}; then completes {@code done}. */
    private void next(int slot, long end, CompletableFuture<Void> done) {
        if (System.nanoTime() > end) {
            done.complete(null);
            return;
        }
        call(slot).whenComplete((status, failure) -> {
            if (failure == null && status == 200) answered.incrementAndGet();
            else refusedByStatus.computeIfAbsent(failure == null ? status : -1, k -> new AtomicLong()).incrementAndGet();
            next(slot, end, done);
        });
    }

    /** One call of the mix, to one member (writes through followers are forwarded, as users' are). */
    private CompletableFuture<Integer> call(int slot) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        String base = urls.get(slot % urls.size());
        String key = "k" + r.nextInt(10_000);
        String single = base + "/api/v1/kv/" + NS + "/" + key;
        int pick = r.nextInt(100);
        if (pick < 35) return sendAsync("PUT", single, "{\"value\":" + VALUE + ",\"forever\":true}", null);
        if (pick < 55) return sendAsync("GET", single, null, null);
        if (pick < 62) return sendAsync("PUT", single, "{\"value\":" + VALUE + ",\"ttlSeconds\":3600,\"expect\":" + r.nextInt(3) + "}", null);
        if (pick < 70) return batch(base, "[{\"op\":\"incr\",\"ns\":\"" + NS + "\",\"key\":\"counter" + r.nextInt(4)
                + "\",\"delta\":1,\"forever\":true}]", null);
        if (pick < 76) {
            // Sixteen distinct keys (a call may not name a key twice).
            int first = 16 * r.nextInt(1_000);
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < 16; i++)
                b.append(i == 0 ? "" : ",").append("{\"op\":\"put\",\"ns\":\"").append(NS).append("\",\"key\":\"b").append(first + i)
                        .append("\",\"value\":").append(VALUE).append(",\"ttlSeconds\":600}");
            return batch(base, b.append("]").toString(), null);
        }
        if (pick < 82) return batch(base, "[{\"op\":\"getPrefix\",\"ns\":\"" + NS + "\",\"prefix\":\"k1\",\"limit\":100}]", null);
        if (pick < 87) {
            // A step's call, sent again now and then as a client retries it: the same key, the same call.
            int step = r.nextInt(1_000);
            return batch(base, "{\"operations\":[{\"op\":\"put\",\"ns\":\"" + NS + "\",\"key\":\"step" + step + "\",\"value\":{\"n\":"
                    + step + "},\"forever\":true},{\"op\":\"get\",\"ns\":\"" + NS + "\",\"key\":\"step" + step + "\"}]}", "step-" + step);
        }
        if (pick < 92) return sendAsync("DELETE", single, null, null);
        if (pick < 97) return batch(base, "[{\"op\":\"getMany\",\"ns\":\"" + NS + "\",\"keys\":[\"k1\",\"k2\",\"" + key + "\"]}]", null);
        return sendAsync("PUT", base + "/api/v1/kv/" + NS + "/large" + r.nextInt(16), "{\"value\":" + LARGE_VALUE + ",\"ttlSeconds\":600}", null);
    }

    private CompletableFuture<Integer> batch(String base, String body, String idempotencyKey) {
        return sendAsync("POST", base + "/api/v1/kv", body, idempotencyKey);
    }

    private CompletableFuture<Integer> sendAsync(String method, String url, String body, String idempotencyKey) {
        return http.sendAsync(request(method, url, body, idempotencyKey), HttpResponse.BodyHandlers.ofByteArray())
                .thenApply(HttpResponse::statusCode);
    }

    /** A call's status, or -1 when nothing answered (a member not listening yet). */
    private int send(String method, String url, String body) throws InterruptedException {
        try {
            return http.send(request(method, url, body, null), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    private static HttpRequest request(String method, String url, String body, String idempotencyKey) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        if (idempotencyKey != null) b.header("Idempotency-Key", idempotencyKey);
        return b.build();
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : held) s.close();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
