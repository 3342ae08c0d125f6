package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.queenkv.node.access.Access;
import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.EntryCodec;
import io.queenkv.node.kv.Expiry;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Outcome;
import io.queenkv.node.kv.OutcomeCodec;
import io.queenkv.node.testing.LocalNode;

/**
 * Group commit in a real three-member cluster: once the leader heard from every member, concurrent
 * writes through the leader and through a follower go to the log in groups, and every answered
 * increment counts exactly once, with or without an Idempotency-Key.
 */
class GroupCommitClusterTest {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;
    List<LocalNode> nodes = List.of();

    @AfterEach
    void close() throws Exception {
        for (LocalNode n : nodes) n.close();
    }

    @Test
    void concurrentWritesGoInGroupsAndEachAnsweredOneCountsOnce() throws Exception {
        LocalNode leader = startAndAwaitTheFormatProbes(), follower = aFollower(leader);
        assertThat(leader.node.replicated().groupsAllowedAsLeader()).isTrue();

        int threads = 32, callsEach = 40;
        AtomicInteger keyedAnswered = new AtomicInteger(), plainAnswered = new AtomicInteger();
        Set<Long> plainVersions = ConcurrentHashMap.newKeySet();
        AtomicInteger plainVersionsSeen = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            LocalNode target = t % 2 == 0 ? leader : follower;
            int thread = t;
            running.add(pool.submit(() -> {
                for (int i = 0; i < callsEach; i++) {
                    boolean keyed = i % 2 == 0;
                    var reply = target.http("POST", "/api/v1/kv", incr(keyed ? "keyed" : "plain"),
                            keyed ? Map.of("Idempotency-Key", "t" + thread + "-" + i) : Map.of());
                    if (reply.statusCode() != 200) continue; // a 503 may happen; only what was answered is counted
                    if (keyed) {
                        keyedAnswered.incrementAndGet();
                    } else {
                        plainAnswered.incrementAndGet();
                        plainVersions.add(json(reply.body()).get("results").get(0).get("version").asLong());
                        plainVersionsSeen.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : running) f.get();
        pool.shutdown();

        assertThat(keyedAnswered.get() + plainAnswered.get()).isGreaterThan(threads * callsEach * 9 / 10);
        JsonNode counters = json(follower.post("/api/v1/kv", "[{\"op\":\"getMany\",\"ns\":\"g\",\"keys\":[\"keyed\",\"plain\"]}]").body())
                .get("results").get(0);
        assertThat(value(counters, "keyed")).isEqualTo(keyedAnswered.get());
        assertThat(value(counters, "plain")).isEqualTo(plainAnswered.get());
        assertThat(plainVersions).hasSize(plainVersionsSeen.get());
        assertThat(leader.node.replicated().writeGroupsSent()).as("groups the leader sent to its own server").isPositive();
        assertThat(follower.node.replicated().writeGroupsSent()).as("groups the follower forwarded").isPositive();
        assertThat(leader.node.replicated().forwardedCallsJoined()).as("forwarded calls the leader wrote in its own groups").isPositive();
        assertThat(leader.get("/metrics").body()).contains("queen_kv_raft_grouped_writes_allowed 1.0");
    }

    /**
     * Once every member reads them, grouped entries are answered as sent: replies and idempotency records leave out the
     * values the calls sent, and the node that sent each call (the leader, or a follower that forwarded it) fills them
     * back in. Every answer, and every retry's, still echoes its own value.
     */
    @Test
    void groupedPutsAnsweredAsSentEchoTheirValuesAndRetriesReplayThem() throws Exception {
        LocalNode leader = startAndAwaitTheFormatProbes(), follower = aFollower(leader);
        assertThat(leader.get("/metrics").body()).contains("queen_kv_raft_answers_as_sent 1.0");

        int threads = 16, callsEach = 20;
        long groupsBefore = leader.node.replicated().writeGroupsSent() + follower.node.replicated().writeGroupsSent();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<List<String>>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            LocalNode target = t % 2 == 0 ? leader : follower;
            int thread = t;
            running.add(pool.submit(() -> {
                List<String> wrong = new ArrayList<>();
                for (int i = 0; i < callsEach; i++) {
                    String value = "\"" + thread + "-" + i + "-" + "x".repeat(300) + "\"";
                    String body = "[{\"op\":\"put\",\"ns\":\"g\",\"key\":\"k" + thread + "-" + i + "\",\"value\":" + value
                            + ",\"forever\":true},{\"op\":\"incr\",\"ns\":\"g\",\"key\":\"n\",\"delta\":1,\"forever\":true}]";
                    Map<String, String> key = Map.of("Idempotency-Key", "p" + thread + "-" + i);
                    var first = target.http("POST", "/api/v1/kv", body, key);
                    if (first.statusCode() != 200) continue; // a 503 may happen; only what was answered is checked
                    var again = (i % 2 == 0 ? leader : follower).http("POST", "/api/v1/kv", body, key);
                    JsonNode answer = json(first.body()).get("results");
                    if (!answer.get(0).get("value").toString().equals(value) || !answer.get(0).get("key").asText().equals("k" + thread + "-" + i)
                            || !answer.get(0).get("op").asText().equals("put") || !answer.get(1).get("op").asText().equals("incr"))
                        wrong.add(first.body());
                    if (again.statusCode() != 200 || !json(again.body()).equals(json(first.body()))) wrong.add(first.body() + " then " + again.body());
                }
                return wrong;
            }));
        }
        List<String> wrong = new ArrayList<>();
        for (Future<List<String>> f : running) wrong.addAll(f.get());
        pool.shutdown();

        assertThat(wrong).as("answers that do not echo their call, or retries answered otherwise").isEmpty();
        assertThat(leader.node.replicated().writeGroupsSent() + follower.node.replicated().writeGroupsSent() - groupsBefore)
                .as("the puts went in groups").isPositive();
    }

    /**
     * A follower's forwarded calls join the leader's own groups through a query. Only the leader takes
     * them, and only calls with an Idempotency-Key (the follower sends again what gets no answer, and a
     * copy must apply once): a refused query writes nothing, an accepted one sent twice applies once.
     */
    @Test
    void onlyTheLeaderTakesForwardedCallsAndOnlyWithAnIdempotencyKey() throws Exception {
        LocalNode leader = startAndAwaitTheFormatProbes(), follower = aFollower(leader);
        ReplicatedKv kv = follower.node.replicated();
        Entry.WriteCall keyless = new Entry.WriteCall(0, Access.DEFAULT_TENANT, null, null,
                List.of(new Op.Incr("g", "joined", BigDecimal.ONE, null, null, Expiry.FOREVER, false)));
        Entry.WriteCall keyed = ReplicatedKv.forwardable(keyless);

        assertThat(askToJoin(kv, kv.selfId(), keyed)).as("a follower takes no forwarded calls").isInstanceOf(Throwable.class);
        assertThat(askToJoin(kv, leader.node.replicated().selfId(), keyless)).as("a call without a key").isInstanceOf(Throwable.class);
        assertThat(counter(follower, "joined")).as("refused queries wrote nothing").isZero();

        Object first = askToJoin(kv, leader.node.replicated().selfId(), keyed);
        Object again = askToJoin(kv, leader.node.replicated().selfId(), keyed);
        assertThat(first).isInstanceOf(Outcome.Completed.class);
        assertThat(again).as("the copy is answered with the first one's outcome").isEqualTo(first);
        assertThat(counter(follower, "joined")).as("applied once").isEqualTo(1);
        assertThat(leader.node.replicated().forwardedCallsJoined()).isEqualTo(2);
    }

    /** The outcome of one forwarded call sent as a join query to {@code target}, or what the query failed with. */
    private static Object askToJoin(ReplicatedKv kv, RaftPeerId target, Entry.WriteCall call) {
        try {
            RaftClientReply reply = kv.client().io().sendStaleRead(
                    KvStateMachine.messageOf(EntryCodec.forwardedCalls(List.of(EntryCodec.encode(call)))), 0, target);
            if (!reply.isSuccess()) return reply.getException();
            return OutcomeCodec.decodeEach(reply.getMessage().getContent().toByteArray(), List.of(call)).get(0).orElseThrow();
        } catch (IOException | RuntimeException e) {
            return e;
        }
    }

    /** A counter's value, read linearizably through {@code node}; 0 while it does not exist. */
    private static long counter(LocalNode node, String key) {
        JsonNode results = json(node.post("/api/v1/kv", "[{\"op\":\"get\",\"ns\":\"g\",\"key\":\"" + key + "\"}]").body()).get("results");
        JsonNode value = results.get(0).get("value");
        return value == null || value.isNull() ? 0 : value.asLong();
    }

    /** Three members; the leader, once every member answered its format probe as this version does. */
    private LocalNode startAndAwaitTheFormatProbes() throws Exception {
        nodes = LocalNode.startCluster(dir, 3, Map.of("QUEEN_KV_WRITE_RATE", "100000"));
        LocalNode leader = LocalNode.awaitLeader(nodes);
        await("the leader to hear from every member").atMost(Duration.ofSeconds(30))
                .until(() -> leader.node.replicated().answersAsSentAsLeader());
        return leader;
    }

    private LocalNode aFollower(LocalNode leader) {
        return nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
    }

    private static String incr(String key) {
        return "[{\"op\":\"incr\",\"ns\":\"g\",\"key\":\"" + key + "\",\"delta\":1,\"forever\":true}]";
    }

    private static long value(JsonNode getMany, String key) {
        for (JsonNode row : getMany.get("rows")) if (row.get("key").asText().equals(key)) return row.get("value").asLong();
        throw new AssertionError("no row " + key + " in " + getMany);
    }

    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (Exception e) {
            throw new AssertionError(body, e);
        }
    }
}
