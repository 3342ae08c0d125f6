package io.queenkv.e2e.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.queenkv.client.BatchResult;
import io.queenkv.client.GetManyResult;
import io.queenkv.client.GetPrefixResult;
import io.queenkv.client.GetResult;
import io.queenkv.client.Lifetime;
import io.queenkv.client.Op;
import io.queenkv.client.QueenKv;
import io.queenkv.client.QueenKvRefusedException;
import io.queenkv.client.QueenKvUnavailableException;
import io.queenkv.client.Row;
import io.queenkv.client.WriteReason;
import io.queenkv.client.WriteResult;
import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.NodeProcessCluster;

/** The SDK against one real node process: every op, lifetimes, CAS races, retries and errors. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SdkSingleNodeTest {
    record Order(String status, int items) {}

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();

    private NodeProcessCluster cluster;
    private QueenKv kv;

    @BeforeAll
    void start() {
        cluster = new NodeProcessCluster(1, Map.of("QUEEN_KV_WRITE_RATE", "5000", "QUEEN_KV_READ_RATE", "5000")).start();
        kv = QueenKv.connect(cluster.url("n1"));
    }

    @AfterAll
    void stop() {
        if (kv != null) kv.close();
        if (cluster != null) cluster.close();
    }

    @Test
    void getPutAndTypedValues() {
        logs.watch(cluster);
        GetResult<Order> absent = kv.get("sdk", "order-1", Order.class);
        assertThat(absent.found()).isFalse();
        assertThat(absent.value()).isNull();

        WriteResult put = kv.put("sdk", "order-1", new Order("paid", 2), Lifetime.ttl("30d"));
        assertThat(put.applied()).isTrue();
        assertThat(put.reason()).isNull();
        assertThat(put.version()).isPositive();
        assertThat(put.value(Order.class)).isEqualTo(new Order("paid", 2));

        GetResult<Order> got = kv.get("sdk", "order-1", Order.class);
        assertThat(got.found()).isTrue();
        assertThat(got.value()).isEqualTo(new Order("paid", 2));
        assertThat(got.version()).isEqualTo(put.version());
        assertThat(got.expiresAt()).isBetween(Instant.now().plus(Duration.ofDays(30)).minusSeconds(60),
                Instant.now().plus(Duration.ofDays(30)).plusSeconds(60));
        assertThat(got.updatedAt()).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(5));

        GetResult<JsonNode> asTree = kv.get("sdk", "order-1");
        assertThat(asTree.value().get("status").asText()).isEqualTo("paid");

        // null, strings, numbers and JsonNode are values too
        kv.put("sdk", "null", null, Lifetime.forever());
        GetResult<Order> nullValue = kv.get("sdk", "null", Order.class);
        assertThat(nullValue.found()).isTrue();
        assertThat(nullValue.value()).isNull();
        assertThat(nullValue.expiresAt()).isNull();
        kv.put("sdk", "text", "hello", Lifetime.forever());
        assertThat(kv.get("sdk", "text", String.class).value()).isEqualTo("hello");
        kv.put("sdk", "tree", JsonNodeFactory.instance.arrayNode().add(1).add("x"), Lifetime.forever());
        assertThat(kv.get("sdk", "tree").value().toString()).isEqualTo("[1,\"x\"]");
    }

    @Test
    void casPutIfAbsentDeleteAndCheck() {
        logs.watch(cluster);
        WriteResult first = kv.put("sdk", "cas", new Order("new", 1), Lifetime.ttl("1h"), 0);
        assertThat(first.applied()).isTrue();
        WriteResult second = kv.put("sdk", "cas", new Order("paid", 1), Lifetime.ttl("1h"), first.version());
        assertThat(second.applied()).isTrue();
        assertThat(second.version()).isGreaterThan(first.version());

        WriteResult lost = kv.put("sdk", "cas", new Order("lost", 1), Lifetime.ttl("1h"), first.version());
        assertThat(lost.applied()).isFalse();
        assertThat(lost.reason()).isEqualTo(WriteReason.VERSION);
        assertThat(lost.value(Order.class)).isEqualTo(new Order("paid", 1));
        assertThat(lost.version()).isEqualTo(second.version());

        WriteResult exists = kv.putIfAbsent("sdk", "cas", new Order("other", 1), Lifetime.forever());
        assertThat(exists.applied()).isFalse();
        assertThat(exists.reason()).isEqualTo(WriteReason.EXISTS);
        assertThat(exists.value(Order.class)).isEqualTo(new Order("paid", 1));

        assertThat(kv.check("sdk", "cas", second.version()).applied()).isTrue();
        WriteResult badCheck = kv.check("sdk", "cas", first.version());
        assertThat(badCheck.applied()).isFalse();
        assertThat(badCheck.reason()).isEqualTo(WriteReason.VERSION);

        WriteResult wrongDelete = kv.delete("sdk", "cas", first.version());
        assertThat(wrongDelete.applied()).isFalse();
        WriteResult deleted = kv.delete("sdk", "cas", second.version());
        assertThat(deleted.applied()).isTrue();
        assertThat(deleted.value(Order.class)).isEqualTo(new Order("paid", 1));
        assertThat(deleted.version()).isEqualTo(second.version());

        WriteResult gone = kv.delete("sdk", "cas");
        assertThat(gone.applied()).isFalse();
        assertThat(gone.reason()).isEqualTo(WriteReason.ABSENT);
        assertThat(gone.value().isNull()).isTrue();
        assertThat(gone.version()).isZero();

        WriteResult absentCas = kv.put("sdk", "cas", 1, Lifetime.forever(), 5);
        assertThat(absentCas.reason()).isEqualTo(WriteReason.ABSENT);
        assertThat(kv.putIfAbsent("sdk", "cas", new Order("again", 1), Lifetime.forever()).applied()).isTrue();
    }

    @Test
    void incrWithBoundsAndDecimals() {
        logs.watch(cluster);
        assertThat(kv.incr("sdk", "counter", 5, Lifetime.ttl("2m")).longValue()).isEqualTo(5);
        assertThat(kv.incr("sdk", "counter", -2, Lifetime.ttl("2m")).longValue()).isEqualTo(3);
        WriteResult limited = kv.write(Op.incr("sdk", "counter", 10, Lifetime.ttl("2m")).max(10));
        assertThat(limited.applied()).isFalse();
        assertThat(limited.reason()).isEqualTo(WriteReason.LIMIT);
        assertThat(limited.longValue()).isEqualTo(3);
        WriteResult floor = kv.write(Op.incr("sdk", "counter", -4, Lifetime.ttl("2m")).min(0));
        assertThat(floor.reason()).isEqualTo(WriteReason.LIMIT);

        kv.incr("sdk", "money", new BigDecimal("0.1"), Lifetime.forever());
        assertThat(kv.incr("sdk", "money", 0.2, Lifetime.forever()).number()).isEqualByComparingTo("0.3");

        kv.put("sdk", "not-a-number", "x", Lifetime.forever());
        assertThat(kv.incr("sdk", "not-a-number", 1, Lifetime.forever()).reason()).isEqualTo(WriteReason.TYPE);
    }

    @Test
    void lifetimes() throws Exception {
        logs.watch(cluster);
        Instant before = Instant.now();
        kv.put("sdk", "ttl-duration", 1, Lifetime.ttl(Duration.ofMinutes(5)));
        kv.put("sdk", "ttl-text", 1, Lifetime.ttl("12h"));
        kv.put("sdk", "until", 1, Lifetime.until(before.plus(Duration.ofHours(3))));
        kv.put("sdk", "forever", 1, Lifetime.forever());
        kv.put("sdk", "short", 1, Lifetime.ttl("1s"));
        Map<String, Row<Integer>> rows = kv.getMany("sdk", List.of("ttl-duration", "ttl-text", "until", "forever", "short"), Integer.class).byKey();
        assertThat(rows.get("ttl-duration").expiresAt()).isBetween(before.plusSeconds(299), before.plusSeconds(305));
        assertThat(rows.get("ttl-text").expiresAt()).isBetween(before.plusSeconds(43_199), before.plusSeconds(43_205));
        assertThat(rows.get("until").expiresAt()).isBetween(before.plus(Duration.ofHours(3)).minusSeconds(1),
                before.plus(Duration.ofHours(3)).plusSeconds(2));
        assertThat(rows.get("forever").forever()).isTrue();

        // refused before anything is sent
        assertThatThrownBy(() -> kv.put("sdk", "no-lifetime", 1, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> kv.put("sdk", "past", 1, Lifetime.until(Instant.now().minusSeconds(1))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(kv.get("sdk", "past").found()).isFalse();

        // the 1 s key expires and is never returned again
        Thread.sleep(1_600);
        assertThat(kv.get("sdk", "short").found()).isFalse();
        assertThat(kv.putIfAbsent("sdk", "short", 2, Lifetime.ttl("1m")).applied()).isTrue();
    }

    @Test
    void getManyAndPrefixPages() {
        logs.watch(cluster);
        Batch250.write(kv);
        GetManyResult<Integer> many = kv.getMany("pages", List.of("k-010", "nope", "k-002", "k-010"), Integer.class);
        assertThat(many.rows()).extracting(Row::key).containsExactly("k-002", "k-010");
        assertThat(many.missing()).containsExactly("nope");

        GetPrefixResult<Integer> first = kv.getPrefix("pages", "k-", Integer.class);
        assertThat(first.rows()).hasSize(100);
        assertThat(first.truncated()).isTrue();
        assertThat(first.nextAfter()).isEqualTo("k-099");
        GetPrefixResult<JsonNode> keysOnly = kv.getPrefix(Op.getPrefix("pages", "k-").after("k-240").limit(5).keysOnly(true), JsonNode.class);
        assertThat(keysOnly.rows()).extracting(Row::key).containsExactly("k-241", "k-242", "k-243", "k-244", "k-245");
        assertThat(keysOnly.rows()).allSatisfy(r -> assertThat(r.value()).isNull());

        List<Row<Integer>> all = kv.scan("pages", "k-", Integer.class).toList();
        assertThat(all).hasSize(250);
        assertThat(all).extracting(Row::value).containsExactlyElementsOf(IntStream.range(0, 250).boxed().toList());
        assertThat(kv.scan(Op.getPrefix("pages", "k-").limit(7), Integer.class).map(Row::key).collect(Collectors.toList()))
                .hasSize(250).isSorted();
        assertThat(kv.scan("pages", "zzz", Integer.class).count()).isZero();
    }

    /** 250 keys in two calls (at most 256 ops per call). */
    private static final class Batch250 {
        static void write(QueenKv kv) {
            for (int start = 0; start < 250; start += 125) {
                var batch = kv.batch();
                for (int i = start; i < start + 125; i++) batch.put("pages", String.format("k-%03d", i), i, Lifetime.ttl("10m"));
                assertThat(batch.execute().completed()).isTrue();
            }
        }
    }

    @Test
    void batchIsAtomicAndRequiredAbortsIt() {
        logs.watch(cluster);
        BatchResult ok = kv.batch()
                .get("batch", "a", Order.class)
                .put("batch", "a", new Order("paid", 1), Lifetime.ttl("1h")).expect(0).required()
                .incr("batch", "n", 1, Lifetime.forever())
                .get("batch", "a", Order.class)
                .check("batch", "c", 0)
                .execute();
        assertThat(ok).isInstanceOf(BatchResult.Completed.class);
        BatchResult.Completed done = (BatchResult.Completed) ok;
        assertThat(done.<Order>get(0).found()).isFalse();
        assertThat(done.write(1).applied()).isTrue();
        assertThat(done.write(2).longValue()).isEqualTo(1);
        assertThat(done.<Order>get(3).value()).isEqualTo(new Order("paid", 1));
        assertThat(done.write(4).applied()).isTrue();
        long version = done.write(1).version();

        BatchResult aborted = kv.batch()
                .incr("batch", "n", 1, Lifetime.forever())
                .put("batch", "a", new Order("stale", 1), Lifetime.ttl("1h")).expect(version + 1000).required()
                .execute();
        assertThat(aborted).isInstanceOf(BatchResult.PreconditionFailed.class);
        BatchResult.PreconditionFailed failed = (BatchResult.PreconditionFailed) aborted;
        assertThat(failed.failedIndex()).isEqualTo(1);
        assertThat(failed.kvReason()).isEqualTo(WriteReason.VERSION);
        assertThat(failed.version()).isEqualTo(version);
        assertThat(failed.value().get("status").asText()).isEqualTo("paid");
        assertThat(kv.get("batch", "n", Integer.class).value()).isEqualTo(1); // nothing written

        // a single required write that loses answers like any lost write
        WriteResult single = kv.write(Op.put("batch", "a", 1, Lifetime.forever()).expect(1).asRequired());
        assertThat(single.applied()).isFalse();
        assertThat(single.reason()).isEqualTo(WriteReason.VERSION);
        assertThat(single.version()).isEqualTo(version);

        assertThat(kv.batch().execute()).isEqualTo(new BatchResult.Completed(List.of()));
    }

    @Test
    void refusalsAreTypedExceptions() {
        logs.watch(cluster);
        assertThatThrownBy(() -> kv.get("Bad NS", "k")).isInstanceOfSatisfying(QueenKvRefusedException.class, e -> {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.error()).isEqualTo("kv_bad_request");
            assertThat(e.reason()).isEqualTo("kv_bad_namespace");
            assertThat(e.detail()).contains("index 0");
        });
        assertThatThrownBy(() -> kv.batch().put("sdk", "dup", 1, Lifetime.forever()).delete("sdk", "dup").execute())
                .isInstanceOfSatisfying(QueenKvRefusedException.class, e -> assertThat(e.reason()).isEqualTo("kv_duplicate_key_in_call"));
        String big = "x".repeat(70_000);
        assertThatThrownBy(() -> kv.put("sdk", "big", big, Lifetime.forever()))
                .isInstanceOfSatisfying(QueenKvRefusedException.class, e -> {
                    assertThat(e.status()).isEqualTo(413);
                    assertThat(e.error()).isEqualTo("payload_too_large");
                    assertThat(e.reason()).isEqualTo("kv_value_too_large");
                });
        assertThatThrownBy(() -> kv.put("sdk", "ttl", 1, Lifetime.ttlSeconds(20_000_000_000L)))
                .isInstanceOfSatisfying(QueenKvRefusedException.class, e -> assertThat(e.reason()).isEqualTo("kv_bad_ttl"));
    }

    @Test
    void asyncForms() throws Exception {
        logs.watch(cluster);
        CompletableFuture<WriteResult> put = kv.async().put("async", "a", new Order("paid", 3), Lifetime.ttl("5m"));
        WriteResult written = put.get(20, TimeUnit.SECONDS);
        CompletableFuture<GetResult<Order>> got = kv.async().get("async", "a", Order.class);
        assertThat(got.get(20, TimeUnit.SECONDS).value()).isEqualTo(new Order("paid", 3));
        List<CompletableFuture<WriteResult>> incrs = IntStream.range(0, 20)
                .mapToObj(i -> kv.async().incr("async", "n", 1, Lifetime.forever())).toList();
        CompletableFuture.allOf(incrs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(incrs.stream().map(CompletableFuture::join).map(WriteResult::longValue).sorted().toList())
                .isEqualTo(IntStream.rangeClosed(1, 20).mapToObj(Long::valueOf).toList());
        BatchResult batch = kv.batch().put("async", "a", new Order("shipped", 3), Lifetime.ttl("5m")).expect(written.version())
                .get("async", "a", Order.class).executeAsync().get(20, TimeUnit.SECONDS);
        assertThat(((BatchResult.Completed) batch).<Order>get(1).value().status()).isEqualTo("shipped");
        CompletableFuture<GetResult<JsonNode>> refused = kv.async().get("BAD", "k");
        assertThat(refused).failsWithin(Duration.ofSeconds(20)).withThrowableThat().havingCause().isInstanceOf(QueenKvRefusedException.class);
    }

    @Test
    void anExecutorOfTheCallersRunsTheClientsWorkAndCompletesAsyncCallsOnTheIoThread() throws Exception {
        logs.watch(cluster);
        AtomicInteger tasks = new AtomicInteger();
        try (QueenKv direct = QueenKv.builder().endpoints(cluster.url("n1")).executor(task -> {
            tasks.incrementAndGet();
            task.run();
        }).build()) {
            List<CompletableFuture<String>> completedOn = IntStream.range(0, 32)
                    .mapToObj(i -> direct.async().incr("direct", "n", 1, Lifetime.forever())
                            .thenApply(r -> Thread.currentThread().getName()))
                    .toList();
            CompletableFuture.allOf(completedOn.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(direct.get("direct", "n").value().asLong()).isEqualTo(32);
            assertThat(tasks.get()).isPositive();
            // The JDK client's own pool names its threads "HttpClient-<n>-Worker-<m>"; none took part.
            assertThat(completedOn.stream().map(CompletableFuture::join).distinct().toList())
                    .allSatisfy(thread -> assertThat(thread).doesNotContain("Worker"));
        }
    }

    @Test
    void casRaceHasExactlyOneWinnerPerVersion() throws Exception {
        logs.watch(cluster);
        long start = kv.put("race", "counter", 0, Lifetime.forever()).version();
        int threads = 4, rounds = 25;
        Map<Long, List<Boolean>> byExpected = new ConcurrentHashMap<>();
        List<WriteResult> losses = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < rounds; i++) {
                    GetResult<Integer> cur = kv.get("race", "counter", Integer.class);
                    WriteResult w = kv.put("race", "counter", cur.value() + 1, Lifetime.forever(), cur.version());
                    byExpected.computeIfAbsent(cur.version(), v -> Collections.synchronizedList(new ArrayList<>())).add(w.applied());
                    if (!w.applied()) losses.add(w);
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : futures) f.get(90, TimeUnit.SECONDS);
        pool.shutdown();

        GetResult<Integer> end = kv.get("race", "counter", Integer.class);
        long wins = byExpected.values().stream().flatMap(List::stream).filter(b -> b).count();
        assertThat(end.value()).isEqualTo((int) wins);
        assertThat(byExpected).containsKey(start);
        byExpected.forEach((version, outcomes) -> assertThat(outcomes.stream().filter(b -> b).count())
                .as("winners on version %d (end version %d)", version, end.version())
                .isEqualTo(version == end.version() ? 0 : 1));
        assertThat(losses).allSatisfy(l -> {
            assertThat(l.reason()).isEqualTo(WriteReason.VERSION);
            assertThat(l.value().isInt()).isTrue();
        });

        // many threads, one putIfAbsent: one winner, everyone else sees it
        List<Future<WriteResult>> claims = new ArrayList<>();
        ExecutorService claimers = Executors.newFixedThreadPool(6);
        for (int i = 0; i < 6; i++) {
            String me = "worker-" + i;
            claims.add(claimers.submit(() -> kv.putIfAbsent("race", "lock", me, Lifetime.ttl("1m"))));
        }
        List<WriteResult> results = new ArrayList<>();
        for (Future<WriteResult> f : claims) results.add(f.get(30, TimeUnit.SECONDS));
        claimers.shutdown();
        List<WriteResult> winners = results.stream().filter(WriteResult::applied).toList();
        assertThat(winners).hasSize(1);
        String winner = winners.get(0).value(String.class);
        assertThat(results).filteredOn(r -> !r.applied()).allSatisfy(r -> {
            assertThat(r.reason()).isEqualTo(WriteReason.EXISTS);
            assertThat(r.value(String.class)).isEqualTo(winner);
        });
    }

    @Test
    void aRetriedIncrIsCountedOnce() throws Exception {
        logs.watch(cluster);
        try (LossyProxy proxy = new LossyProxy(cluster.node("n1").httpPort(), 1);
             QueenKv viaProxy = QueenKv.connect(proxy.url())) {
            WriteResult w = viaProxy.incr("retry", "seen", 1, Lifetime.forever());
            assertThat(proxy.dropped()).as("the first answer was lost").isEqualTo(1);
            assertThat(proxy.connections()).as("the SDK tried again").isGreaterThanOrEqualTo(2);
            assertThat(w.applied()).isTrue();
            assertThat(w.longValue()).isEqualTo(1);
        }
        assertThat(kv.get("retry", "seen", Integer.class).value()).as("applied once").isEqualTo(1);

        // the same call sent twice with one key: the recorded answer, counted once
        BatchResult a = kv.batch().incr("retry", "step", 1, Lifetime.forever()).idempotencyKey("step-77").execute();
        BatchResult b = kv.batch().incr("retry", "step", 1, Lifetime.forever()).idempotencyKey("step-77").execute();
        assertThat(b).isEqualTo(a);
        assertThat(kv.get("retry", "step", Integer.class).value()).isEqualTo(1);
        // the same key with a different call is refused
        assertThatThrownBy(() -> kv.batch().incr("retry", "step", 2, Lifetime.forever()).idempotencyKey("step-77").execute())
                .isInstanceOfSatisfying(QueenKvRefusedException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.reason()).isEqualTo("kv_idempotency_key_reused");
                });
    }

    @Test
    void noAnswerIsUnavailableWithAnUnknownOutcome() {
        logs.watch(cluster);
        try (QueenKv dead = QueenKv.builder().endpoints("http://127.0.0.1:1").maxAttempts(2).build()) {
            assertThatThrownBy(() -> dead.incr("x", "y", 1, Lifetime.forever()))
                    .isInstanceOfSatisfying(QueenKvUnavailableException.class, e -> {
                        assertThat(e.attempts()).isEqualTo(2);
                        assertThat(e.reason()).isEqualTo("connection_failed");
                        assertThat(e.outcomeUnknown()).isTrue();
                    });
            assertThatThrownBy(() -> dead.get("x", "y"))
                    .isInstanceOfSatisfying(QueenKvUnavailableException.class, e -> assertThat(e.outcomeUnknown()).isFalse());
        }
        // a dead endpoint first, then the node: the call fails over
        try (QueenKv failover = QueenKv.connect("http://127.0.0.1:1", cluster.url("n1"))) {
            assertThat(failover.put("sdk", "failover", 1, Lifetime.forever()).applied()).isTrue();
            assertThat(failover.currentEndpoint().toString()).isEqualTo(cluster.url("n1"));
        }
    }
}
