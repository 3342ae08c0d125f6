package io.queenkv.e2e.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.client.GetResult;
import io.queenkv.client.Lifetime;
import io.queenkv.client.QueenKv;
import io.queenkv.client.WriteReason;
import io.queenkv.client.WriteResult;
import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.NodeProcessCluster;

/** The SDK against a three-node cluster: CAS races through every node, failover when the leader is SIGKILLed. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SdkClusterTest {
    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();

    private NodeProcessCluster cluster;

    @BeforeAll
    void start() {
        cluster = new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "5000", "QUEEN_KV_READ_RATE", "5000")).start();
    }

    @AfterAll
    void stop() {
        if (cluster != null) cluster.close();
    }

    /** Endpoints with {@code first} in front, then the others in order. */
    private List<String> endpointsStartingAt(String first) {
        List<String> urls = new ArrayList<>();
        urls.add(cluster.url(first));
        for (String id : cluster.ids()) if (!id.equals(first)) urls.add(cluster.url(id));
        return urls;
    }

    @Test
    @Order(1)
    void casRaceThroughEveryNodeHasOneWinnerPerVersion() throws Exception {
        logs.watch(cluster);
        List<QueenKv> clients = cluster.ids().stream().map(id -> QueenKv.builder().endpoints(endpointsStartingAt(id)).build()).toList();
        try {
            long start = clients.get(0).put("race", "doc", 0, Lifetime.ttl("1h")).version();
            Map<Long, List<Boolean>> byExpected = new ConcurrentHashMap<>();
            int threads = 6, rounds = 12;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                QueenKv kv = clients.get(t % clients.size());
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < rounds; i++) {
                        GetResult<Integer> cur = kv.get("race", "doc", Integer.class);
                        WriteResult w = kv.put("race", "doc", cur.value() + 1, Lifetime.ttl("1h"), cur.version());
                        byExpected.computeIfAbsent(cur.version(), v -> Collections.synchronizedList(new ArrayList<>())).add(w.applied());
                        if (!w.applied()) {
                            assertThat(w.reason()).isEqualTo(WriteReason.VERSION);
                            assertThat(w.version()).isGreaterThan(cur.version());
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) f.get(90, TimeUnit.SECONDS);
            pool.shutdown();
            GetResult<Integer> end = clients.get(1).get("race", "doc", Integer.class);
            long wins = byExpected.values().stream().flatMap(List::stream).filter(b -> b).count();
            assertThat(end.value()).isEqualTo((int) wins);
            assertThat(byExpected).containsKey(start);
            byExpected.forEach((version, outcomes) -> assertThat(outcomes.stream().filter(b -> b).count())
                    .as("winners on version %d", version).isEqualTo(version == end.version() ? 0 : 1));
        } finally {
            clients.forEach(QueenKv::close);
        }
    }

    @Test
    @Order(2)
    void failsOverWhileTheLeaderIsKilled() throws Exception {
        logs.watch(cluster);
        String leader = cluster.leaderId();
        // The leader first, so the kill hits the endpoint in use.
        try (QueenKv kv = QueenKv.builder().endpoints(endpointsStartingAt(leader)).build()) {
            kv.put("failover", "before", "written before the kill", Lifetime.forever());
            int calls = 0;
            List<Throwable> failures = new ArrayList<>();
            AtomicBoolean killed = new AtomicBoolean();
            AtomicReference<Long> killedAt = new AtomicReference<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            Thread killer = new Thread(() -> {
                try {
                    Thread.sleep(600);
                } catch (InterruptedException e) {
                    return;
                }
                cluster.kill9(leader);
                killedAt.set(System.nanoTime());
                killed.set(true);
            });
            killer.start();
            // incr without pause: some call is in flight when the leader dies
            long slowest = 0;
            while (System.nanoTime() < deadline) {
                try {
                    long t0 = System.nanoTime();
                    WriteResult w = kv.incr("failover", "count", 1, Lifetime.forever());
                    slowest = Math.max(slowest, System.nanoTime() - t0);
                    assertThat(w.applied()).isTrue();
                    calls++;
                } catch (RuntimeException e) {
                    failures.add(e);
                }
                Long at = killedAt.get();
                if (at != null && System.nanoTime() - at > TimeUnit.SECONDS.toNanos(3) && calls > 20) break;
            }
            killer.join();
            System.out.printf("[e2e] failover: %d incr calls, slowest %d ms, now on %s (killed %s)%n", calls,
                    TimeUnit.NANOSECONDS.toMillis(slowest), kv.currentEndpoint(), cluster.url(leader));
            assertThat(killed).isTrue();
            assertThat(failures).as("calls that failed despite failover").isEmpty();
            assertThat(kv.currentEndpoint().toString()).isNotEqualTo(cluster.url(leader));

            GetResult<Integer> count = kv.get("failover", "count", Integer.class);
            assertThat(count.value()).as("every successful incr counted exactly once").isEqualTo(calls);
            assertThat(kv.get("failover", "before", String.class).value()).isEqualTo("written before the kill");
            assertThat(cluster.leaderId()).isNotEqualTo(leader);
        }
    }
}
