package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.queenkv.node.testing.LocalNode;

/**
 * Shared ReadIndex rounds in a real three-member cluster: while a counter is incremented through
 * the leader, many concurrent reads on every member share rounds, none of them sees less than the
 * counter's value acknowledged before it was sent (no stale read), and the writes keep going (a
 * round started from the thread Ratis completed the last one on deadlocked the leader).
 */
class ReadBarrierClusterTest {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;
    List<LocalNode> nodes = List.of();

    @AfterEach
    void close() throws Exception {
        for (LocalNode n : nodes) n.close();
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void readsOnFollowersShareRoundsAndNeverMissAnAcknowledgedWrite() throws Exception {
        nodes = LocalNode.startCluster(dir, 3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"));
        LocalNode leader = LocalNode.awaitLeader(nodes);
        List<LocalNode> followers = nodes.stream().filter(n -> n != leader).toList();

        AtomicLong acknowledged = new AtomicLong();
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger reads = new AtomicInteger(), stale = new AtomicInteger();
        int readers = 24;
        ExecutorService pool = Executors.newFixedThreadPool(readers + 2);
        List<Future<?>> running = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
        for (int w = 0; w < 2; w++) {
            running.add(pool.submit(() -> {
                for (int i = 0; i < 150 && System.nanoTime() < deadline; i++) {
                    var reply = leader.http("POST", "/api/v1/kv", "[{\"op\":\"incr\",\"ns\":\"r\",\"key\":\"c\",\"delta\":1,\"forever\":true}]", Map.of());
                    if (reply.statusCode() == 200) acknowledged.accumulateAndGet(json(reply.body()).get("results").get(0).get("value").asLong(), Math::max);
                }
                return null;
            }));
        }
        for (int r = 0; r < readers; r++) {
            LocalNode target = nodes.get(r % 3);
            running.add(pool.submit(() -> {
                while (writing.get()) {
                    long before = acknowledged.get();
                    var reply = target.get("/api/v1/kv/r/c");
                    if (reply.statusCode() != 200) continue;
                    JsonNode got = json(reply.body());
                    long seen = got.get("found").asBoolean() ? got.get("value").asLong() : 0;
                    reads.incrementAndGet();
                    if (seen < before) stale.incrementAndGet();
                }
                return null;
            }));
        }
        running.get(0).get();
        running.get(1).get();
        writing.set(false);
        for (Future<?> f : running) f.get();
        pool.shutdown();

        assertThat(acknowledged.get()).as("increments acknowledged while reads ran").isGreaterThan(250);
        assertThat(reads.get()).isGreaterThan(readers);
        assertThat(stale.get()).as("reads that missed a write acknowledged before they were sent").isZero();
        for (LocalNode f : followers) {
            ReplicatedKv kv = f.node.replicated();
            assertThat(kv.readsPassedRounds()).as("reads on " + kv.selfId()).isPositive();
            assertThat(kv.readIndexRounds()).as("rounds on " + kv.selfId() + ": concurrent reads shared them")
                    .isLessThan(kv.readsPassedRounds());
        }
        assertThat(followers.get(0).get("/metrics").body()).contains("queen_kv_read_index_rounds_total");
    }

    /**
     * A follower asks its leader for the read index over a stream that one failure may close for
     * good. When the leader goes, the follower's reads answer again under the next leader, and again
     * once the old leader is back at the same address and leads once more.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFollowersReadsGoOnWhileItsLeaderGoesAndComesBack() throws Exception {
        nodes = new ArrayList<>(LocalNode.startCluster(dir, 3, Map.of()));
        LocalNode first = LocalNode.awaitLeader(nodes);
        String firstId = first.node.replicated().selfId().toString();
        LocalNode follower = nodes.stream().filter(n -> n != first).findFirst().orElseThrow();
        assertThat(put(first, 1).statusCode()).isEqualTo(200);
        assertThat(readValue(follower)).isEqualTo(1);

        first.close();
        nodes.remove(first);
        LocalNode second = LocalNode.awaitLeader(nodes);
        assertThat(put(second, 2).statusCode()).isEqualTo(200);
        // While the follower still takes the closed node for its leader, its reads may fail (503).
        Awaitility.await("the follower reads under the next leader").atMost(Duration.ofSeconds(30))
                .until(() -> readValue(follower) == 2);

        LocalNode back = LocalNode.restart(first);
        nodes.add(back);
        back.awaitReady();
        Awaitility.await("leadership back on " + firstId).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> second.post("/api/v1/admin/leadership", "{\"to\":\"" + firstId + "\"}").statusCode() == 200
                        && back.node.replicated().membership().map(d -> d.getInfo().isLeader() && d.getInfo().isLeaderReady()).orElse(false));
        assertThat(put(back, 3).statusCode()).isEqualTo(200);
        Awaitility.await("the follower reads under the returned leader").atMost(Duration.ofSeconds(30))
                .until(() -> readValue(follower) == 3);
        for (int i = 0; i < 50; i++) assertThat(readValue(follower)).as("read %d after the leader came back", i).isEqualTo(3);
    }

    private static HttpResponse<String> put(LocalNode node, long value) {
        return node.http("PUT", "/api/v1/kv/r/k", "{\"value\":" + value + ",\"forever\":true}", Map.of());
    }

    /** The value of r/k read through {@code node}; -1 when the read was refused. */
    private static long readValue(LocalNode node) {
        var reply = node.get("/api/v1/kv/r/k");
        return reply.statusCode() == 200 ? json(reply.body()).get("value").asLong() : -1;
    }


    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (Exception e) {
            throw new AssertionError(body, e);
        }
    }
}
