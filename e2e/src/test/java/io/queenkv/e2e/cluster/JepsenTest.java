package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;
import io.queenkv.e2e.linearizability.HistoryRecorder;
import io.queenkv.e2e.linearizability.KvModel;
import io.queenkv.e2e.linearizability.LinearizabilityChecker;

/**
 * A Jepsen-style run against real node processes: concurrent clients on every node doing
 * get / put / compare-and-swap / putIfAbsent / incr (with {@code Idempotency-Key} retries) on a few
 * keys, while a nemesis kills (SIGKILL) and pauses (SIGSTOP/SIGCONT) the leader and other nodes —
 * and, where iptables works, partitions a node's Raft traffic. Every operation is recorded with its
 * call and return time; a timeout, 503 or broken connection is "may or may not have happened".
 * After healing: all nodes converge on one applied index and read every key identically; each
 * key's history is linearizable ({@link LinearizabilityChecker}); each counter ends within
 * [acknowledged incr, acknowledged + unknown]; each claim key has exactly one putIfAbsent winner.
 *
 * <p>Keys rotate: every {@code queenkv.jepsen.keySeconds} (15) the clients move to a fresh
 * generation of keys ({@code r<i>.g<n>}, {@code claim.g<n>}, {@code counter.g<n>}), so each key's
 * history stays small enough for the checker whatever the run's length.
 *
 * <p>System properties: {@code queenkv.jepsen.seconds} (load duration, 60), {@code .clients} (5),
 * {@code .keys} (3 registers per generation), {@code .keySeconds} (15), {@code .nodes} (3),
 * {@code .timeoutMs} (per-request timeout, 2500), {@code .faultSeconds} (how long a fault lasts, 3),
 * {@code .partitions} (true: use the partition nemesis where the machine allows it). The Maven
 * profile {@code jepsen-long} sets a 10-minute run. {@code -Dqueenkv.e2e.tls=true} runs every method
 * over mutual TLS and HTTPS; {@link #killsAndPausesOverTls} always does, for 20 s.
 */
class JepsenTest {
    static final String NS = "jepsen";
    static final int SECONDS = Integer.getInteger("queenkv.jepsen.seconds", 60);
    static final int CLIENTS = Integer.getInteger("queenkv.jepsen.clients", 5);
    static final int KEYS = Integer.getInteger("queenkv.jepsen.keys", 3);
    static final int KEY_SECONDS = Integer.getInteger("queenkv.jepsen.keySeconds", 15);
    static final int NODES = Integer.getInteger("queenkv.jepsen.nodes", 3);
    static final long TIMEOUT_MS = Long.getLong("queenkv.jepsen.timeoutMs", 2500);
    static final long FAULT_MS = Long.getLong("queenkv.jepsen.faultSeconds", 3) * 1000;
    static final boolean PARTITIONS = Boolean.parseBoolean(System.getProperty("queenkv.jepsen.partitions", "true"));

    enum Fault { KILL_LEADER, KILL_FOLLOWER, PAUSE_LEADER, PAUSE_FOLLOWER, PARTITION }

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;
    LoopbackPartitioner partitioner;
    boolean tls = Boolean.getBoolean("queenkv.e2e.tls");

    @AfterEach
    void close() {
        if (partitioner != null) partitioner.healAll();
        if (cluster != null) cluster.close();
    }

    @Test
    void killsAndPauses() {
        partitioner = new LoopbackPartitioner();
        List<Fault> faults = new ArrayList<>(List.of(Fault.KILL_LEADER, Fault.KILL_FOLLOWER, Fault.PAUSE_LEADER, Fault.PAUSE_FOLLOWER));
        if (PARTITIONS && partitioner.available()) faults.add(Fault.PARTITION);
        else ClusterChecks.say("jepsen: no partition nemesis in this run (%s)",
                PARTITIONS ? partitioner.unavailableReason() : "-Dqueenkv.jepsen.partitions=false");
        run(faults, SECONDS);
    }

    /**
     * The same run over mutual TLS and HTTPS, shorter (20 s; the whole suite runs with TLS under
     * {@code -Dqueenkv.e2e.tls=true}).
     */
    @Test
    void killsAndPausesOverTls() {
        partitioner = new LoopbackPartitioner();
        tls = true;
        List<Fault> faults = new ArrayList<>(List.of(Fault.KILL_LEADER, Fault.KILL_FOLLOWER, Fault.PAUSE_LEADER, Fault.PAUSE_FOLLOWER));
        if (PARTITIONS && partitioner.available()) faults.add(Fault.PARTITION);
        run(faults, Math.min(SECONDS, 20));
    }

    @Test
    void partitions() {
        partitioner = new LoopbackPartitioner();
        Assumptions.assumeTrue(PARTITIONS, "partitions disabled by -Dqueenkv.jepsen.partitions=false");
        Assumptions.assumeTrue(partitioner.available(), () -> "no partition nemesis here: " + partitioner.unavailableReason());
        run(List.of(Fault.PARTITION), Math.max(20, SECONDS / 2));
    }

    private void run(List<Fault> faults, int seconds) {
        assertTimeoutPreemptively(Duration.ofSeconds(seconds + 400L), () -> runUnbounded(faults, seconds),
                "the Jepsen run did not finish");
    }

    // ---- the run ------------------------------------------------------------------------------------

    /** What one generation's counter and claim key saw. */
    static final class GenStats {
        final AtomicInteger incrAcked = new AtomicInteger();
        final AtomicInteger incrUnknown = new AtomicInteger();
        final List<String> claimWinners = new ArrayList<>();     // values of acknowledged winners
        final List<String> claimLosers = new ArrayList<>();      // "value@version" each loser was shown
        final Set<String> claimAttempts = ConcurrentHashMap.newKeySet();
    }

    final HistoryRecorder<KvModel.Input, KvModel.Output> history = new HistoryRecorder<>();
    final Map<Integer, GenStats> gens = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    volatile boolean running;
    volatile Throwable clientFailure;
    long startNanos;

    private void runUnbounded(List<Fault> faults, int seconds) throws Exception {
        cluster = logs.watch(new NodeProcessCluster(NODES, Map.of(
                "QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"), tls)).start();
        List<String> urls = cluster.ids().stream().map(cluster::url).toList();
        ClusterChecks.say("jepsen: %d s, %d clients, %d nodes, %d keys per %d s generation, timeout %d ms, faults %s%s",
                seconds, CLIENTS, NODES, KEYS, KEY_SECONDS, TIMEOUT_MS, faults, tls ? ", TLS" : "");

        running = true;
        startNanos = System.nanoTime();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int id = c;
            Thread t = new Thread(() -> client(id, urls), "jepsen-client-" + c);
            t.setDaemon(true);
            clients.add(t);
        }
        List<String> nemesisLog = new ArrayList<>();
        Thread nemesis = new Thread(() -> nemesis(faults, nemesisLog), "jepsen-nemesis");
        nemesis.setDaemon(true);
        clients.forEach(Thread::start);
        nemesis.start();
        try {
            Thread.sleep(seconds * 1000L); // the load runs this long (pacing, not a wait)
        } finally {
            running = false;
            nemesis.join(60_000);
            for (Thread t : clients) t.join(TIMEOUT_MS * 8 + 5_000);
            heal();
        }
        assertThat(nemesis.isAlive()).as("nemesis still running").isFalse();
        if (clientFailure != null) throw new AssertionError("a client failed", clientFailure);
        ClusterChecks.say("jepsen: nemesis did %s", nemesisLog);
        ClusterChecks.say("jepsen: %d operations recorded; outcomes %s", history.size(), new java.util.TreeMap<>(outcomes));

        // Convergence: one applied index everywhere, and every key reads the same on every node.
        cluster.ids().forEach(id -> cluster.awaitReady(id, Duration.ofSeconds(60)));
        long index = ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(60));
        int lastGen = generation(System.nanoTime());
        List<String> keys = new ArrayList<>();
        for (int g = 0; g <= lastGen; g++) {
            for (int i = 0; i < KEYS; i++) keys.add(register(i, g));
            keys.add(claim(g));
            keys.add(counter(g));
        }
        Map<String, Map<String, JsonNode>> byNode = new LinkedHashMap<>();
        for (String id : cluster.ids()) {
            long call = System.nanoTime();
            Map<String, JsonNode> rows = ClusterChecks.readAll(cluster.url(id), NS, keys);
            long ret = System.nanoTime();
            byNode.put(id, rows);
            for (String k : keys) history.completed(100, new KvModel.Get(NS + "/" + k), call, ret, readOutput(rows.get(k)));
        }
        Map<String, JsonNode> reference = byNode.values().iterator().next();
        for (var e : byNode.entrySet())
            for (String k : keys)
                assertThat(String.valueOf(e.getValue().get(k))).as("key %s on %s vs %s", k, e.getKey(), cluster.ids().get(0))
                        .isEqualTo(String.valueOf(reference.get(k)));
        ClusterChecks.say("jepsen: %d nodes converged at applied index %d; %d keys read identically", cluster.ids().size(), index, keys.size());

        // Counters and claims, per generation.
        for (var e : new java.util.TreeMap<>(gens).entrySet()) {
            int g = e.getKey();
            GenStats s = e.getValue();
            JsonNode counterRow = reference.get(counter(g));
            long value = counterRow == null ? 0 : counterRow.path("value").asLong();
            int acked = s.incrAcked.get(), unknown = s.incrUnknown.get();
            ClusterChecks.say("jepsen: generation %d: counter %d (acked incr %d, unknown %d); claim winners %s, %d losers",
                    g, value, acked, unknown, s.claimWinners, s.claimLosers.size());
            assertThat(value).as("counter.g%d: acknowledged incr %d, unknown %d", g, acked, unknown)
                    .isBetween((long) acked, (long) acked + unknown);
            JsonNode claimRow = reference.get(claim(g));
            assertThat(s.claimWinners).as("acknowledged putIfAbsent winners of claim.g%d", g).hasSizeLessThanOrEqualTo(1);
            assertThat(new TreeSet<>(s.claimLosers)).as("the winner named by every loser of claim.g%d", g).hasSizeLessThanOrEqualTo(1);
            if (!s.claimWinners.isEmpty() || !s.claimLosers.isEmpty()) {
                assertThat(claimRow).as("claim.g%d exists", g).isNotNull();
                String winner = claimRow.path("value").toString() + "@" + claimRow.path("version").asLong();
                if (!s.claimWinners.isEmpty()) assertThat(claimRow.path("value").toString()).isEqualTo(s.claimWinners.get(0));
                if (!s.claimLosers.isEmpty()) assertThat(s.claimLosers.get(0)).as("losers of claim.g%d name the winner", g).isEqualTo(winner);
                assertThat(s.claimAttempts).as("claim.g%d holds one of the attempted values", g).contains(claimRow.path("value").toString());
            }
        }

        // Linearizability of every key.
        long t0 = System.nanoTime();
        LinearizabilityChecker.Result result = LinearizabilityChecker.check(KvModel.INSTANCE, history.snapshot());
        ClusterChecks.say("jepsen: checked %d keys in %.1f s: %s", result.partitions().size(), (System.nanoTime() - t0) / 1e9,
                result.partitions().stream().map(p -> p.partition() + "=" + p.verdict() + "(" + p.operations() + " ops, " + p.steps() + " steps)")
                        .collect(Collectors.joining(", ")));
        assertThat(result.verdict()).as("%s", result.explanation()).isEqualTo(LinearizabilityChecker.Verdict.LINEARIZABLE);
    }

    private int generation(long nanos) {
        return (int) ((nanos - startNanos) / 1_000_000_000L / KEY_SECONDS);
    }

    static String register(int i, int gen) {
        return "r" + i + ".g" + gen;
    }

    static String claim(int gen) {
        return "claim.g" + gen;
    }

    static String counter(int gen) {
        return "counter.g" + gen;
    }

    // ---- clients ----------------------------------------------------------------------------------------

    private void count(String what) {
        outcomes.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
    }

    /** The request never left: the connection was refused, so nothing can have been applied. */
    static boolean notSent(KvHttp.Reply r) {
        return r.kind() == KvHttp.Reply.Kind.CONNECTION_FAILED && r.detail() != null && r.detail().contains("ConnectException");
    }

    private void client(int id, List<String> urls) {
        KvHttp http = new KvHttp(Duration.ofMillis(TIMEOUT_MS));
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        Map<String, Long> lastSeen = new HashMap<>();
        int node = id % urls.size();
        int seq = 0;
        try {
            while (running) {
                int gen = generation(System.nanoTime());
                GenStats stats = gens.computeIfAbsent(gen, g -> new GenStats());
                String url = urls.get(node);
                int dice = rnd.nextInt(100);
                boolean failed;
                if (dice < 15) {
                    failed = incr(id, http, urls, node, gen, stats);
                } else {
                    String key;
                    ObjectNode op;
                    KvModel.Input input;
                    boolean write = true;
                    String value = "\"c" + id + "-" + (++seq) + "\"";
                    JsonNode json = KvHttp.JSON.readTree(value);
                    if (dice < 25) {
                        key = claim(gen);
                        op = KvHttp.opPutIfAbsent(NS, key, json);
                        input = new KvModel.PutIfAbsent(NS + "/" + key, value);
                        stats.claimAttempts.add(value);
                    } else {
                        key = register(rnd.nextInt(KEYS), gen);
                        if (dice < 55) {
                            op = KvHttp.opGet(NS, key);
                            input = new KvModel.Get(NS + "/" + key);
                            write = false;
                        } else if (dice < 75) {
                            op = KvHttp.opPut(NS, key, json);
                            input = new KvModel.Put(NS + "/" + key, value);
                        } else {
                            long expect = lastSeen.getOrDefault(key, 0L);
                            op = KvHttp.opCas(NS, key, expect, json);
                            input = new KvModel.Cas(NS + "/" + key, expect, value);
                        }
                    }
                    String name = op.path("op").asText() + (op.has("expect") ? "-cas" : "");
                    long call = System.nanoTime();
                    KvHttp.Reply r = http.call(url, op);
                    long ret = System.nanoTime();
                    failed = !r.ok();
                    if (r.ok() && r.body().has("results")) {
                        JsonNode e = r.result(0);
                        KvModel.Output out = write ? writeOutput(e) : readOutput(e.path("found").asBoolean() ? e : null);
                        history.completed(id, input, call, ret, out);
                        if (e.has("version")) lastSeen.put(key, e.path("version").asLong());
                        count(name + (write ? (e.path("applied").asBoolean() ? ":applied" : ":lost") : ":ok"));
                        if (input instanceof KvModel.PutIfAbsent) {
                            synchronized (stats) {
                                if (e.path("applied").asBoolean()) stats.claimWinners.add(value);
                                else stats.claimLosers.add(e.path("value").toString() + "@" + e.path("version").asLong());
                            }
                        }
                    } else if (notSent(r)) {
                        count(name + ":not-sent");
                    } else if (r.unknown()) {
                        if (write) history.unknown(id, input, call, KvModel.UNKNOWN);
                        count(name + ":" + r.kind());
                    } else {
                        count(name + ":refused-" + r.status()); // nothing applied, nothing recorded
                    }
                }
                if (failed) node = (node + 1) % urls.size(); // try another node next
                Thread.sleep(rnd.nextInt(5, 25)); // pacing
            }
        } catch (Throwable t) {
            clientFailure = t;
        }
    }

    /**
     * One logical incr of the generation's counter: up to 6 attempts on successive nodes, all with
     * the same {@code Idempotency-Key}, so it applies at most once. Recorded as one operation from
     * the first attempt's call to the acknowledging attempt's return (or unknown).
     */
    private boolean incr(int id, KvHttp http, List<String> urls, int node, int gen, GenStats stats) throws InterruptedException {
        String key = counter(gen);
        KvModel.Input input = new KvModel.Incr(NS + "/" + key, BigDecimal.ONE);
        Map<String, String> headers = Map.of("Idempotency-Key", "incr-" + UUID.randomUUID());
        ObjectNode body = KvHttp.JSON.createObjectNode();
        body.putArray("operations").add(KvHttp.opIncr(NS, key, 1));
        long call = System.nanoTime();
        boolean mayHaveApplied = false;
        for (int attempt = 0; attempt < 6; attempt++) {
            String url = urls.get((node + attempt) % urls.size());
            KvHttp.Reply r = http.batch(url, body, headers);
            if (r.ok() && r.body().has("results")) {
                JsonNode e = r.result(0);
                history.completed(id, input, call, System.nanoTime(), writeOutput(e));
                stats.incrAcked.incrementAndGet();
                count("incr:" + (attempt == 0 ? "applied" : "applied-after-retry"));
                return attempt > 0;
            }
            if (r.unknown() && !notSent(r)) mayHaveApplied = true;
            else if (!r.unknown() && r.status() != 429) {
                count("incr:refused-" + r.status());
                if (r.status() == 409) throw new AssertionError("Idempotency-Key reused on the same call: " + r);
                break; // a refusal applies nothing; earlier attempts may still have
            }
            Thread.sleep(200L * (attempt + 1)); // back off before the retry (pacing)
        }
        if (mayHaveApplied) {
            history.unknown(id, input, call, KvModel.UNKNOWN);
            stats.incrUnknown.incrementAndGet();
            count("incr:unknown");
        } else {
            count("incr:not-applied");
        }
        return true;
    }

    static KvModel.Output readOutput(JsonNode row) {
        if (row == null || row.isMissingNode() || row.isNull()) return KvModel.Read.absent();
        return KvModel.Read.of(row.get("value").toString(), row.get("version").asLong());
    }

    static KvModel.Output writeOutput(JsonNode e) {
        JsonNode v = e.get("value");
        String value = v == null ? null : v.toString();
        long version = e.path("version").asLong();
        return e.path("applied").asBoolean() ? KvModel.Write.applied(value, version) : KvModel.Write.lost(value, version);
    }

    // ---- nemesis ------------------------------------------------------------------------------------------

    private void nemesis(List<Fault> faults, List<String> done) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int i = 0;
        try {
            pace(2000);
            while (running) {
                Fault f = faults.get(i++ % faults.size());
                String leader = cluster.currentLeader().orElse(null);
                List<String> live = cluster.liveIds();
                String target;
                if (f == Fault.KILL_LEADER || f == Fault.PAUSE_LEADER) {
                    target = leader != null ? leader : live.get(rnd.nextInt(live.size()));
                } else {
                    List<String> followers = live.stream().filter(x -> !x.equals(leader)).toList();
                    target = followers.isEmpty() ? live.get(rnd.nextInt(live.size())) : followers.get(rnd.nextInt(followers.size()));
                }
                long t = (System.nanoTime() - startNanos) / 1_000_000;
                done.add(String.format("%.1fs %s(%s%s)", t / 1000.0, f, target, target.equals(leader) ? ", leader" : ""));
                switch (f) {
                    case KILL_LEADER, KILL_FOLLOWER -> {
                        cluster.kill9(target);
                        pace(FAULT_MS);
                        cluster.restartNoWait(target);
                    }
                    case PAUSE_LEADER, PAUSE_FOLLOWER -> {
                        cluster.pause(target);
                        pace(FAULT_MS);
                        cluster.resume(target);
                    }
                    case PARTITION -> {
                        var h = cluster.node(target);
                        partitioner.isolate(h.raftPort(), h.httpPort(), h.pid());
                        long until = System.currentTimeMillis() + FAULT_MS;
                        while (System.currentTimeMillis() < until) {
                            pace(100);
                            partitioner.refresh(h.httpPort(), h.pid());
                        }
                        partitioner.healAll();
                    }
                }
                // Let the node come back before the next fault, so a majority is usually up.
                try {
                    cluster.awaitReady(target, Duration.ofSeconds(30));
                } catch (AssertionError e) {
                    ClusterChecks.say("jepsen: %s not ready 30 s after %s: %s", target, f, e.getMessage().lines().findFirst().orElse(""));
                }
                pace(1000 + rnd.nextInt(2000));
            }
        } catch (Throwable t) {
            done.add("nemesis failed: " + t);
            t.printStackTrace();
        }
    }

    private static void pace(long ms) throws InterruptedException {
        Thread.sleep(ms); // nemesis pacing
    }

    /** Resumes every paused node, restarts every stopped one, removes every partition rule. */
    private void heal() {
        partitioner.healAll();
        for (String id : cluster.ids()) {
            var h = cluster.node(id);
            if (h.running() && h.paused()) cluster.resume(id);
            if (!h.running()) cluster.restartNoWait(id);
        }
    }
}
