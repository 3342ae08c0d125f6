package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.testing.LocalNode;

/**
 * {@code /readyz} says 200 only once the node has applied what the leader had committed: a member
 * that comes back behind takes as committed only what its own log holds, so its own commit index
 * trails the leader's while it catches up, and its applied index is close to it all along.
 */
class ReadinessTest {
    static final int WRITES = 400, VALUE_CHARS = 60 << 10;
    @TempDir
    Path dir;
    List<LocalNode> nodes = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (LocalNode n : nodes) n.close();
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aMemberThatComesBackBehindIsNotReadyUntilItAppliedWhatTheLeaderCommitted() throws Exception {
        nodes.addAll(LocalNode.startCluster(dir, 3, Map.of("QUEEN_KV_WRITE_RATE", "100000")));
        LocalNode leader = LocalNode.awaitLeader(nodes);
        LocalNode follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        follower.close();
        nodes.remove(follower);

        // Tens of MiB the member misses: several appends' worth, so catching up takes a while.
        String value = "v".repeat(VALUE_CHARS);
        for (int i = 0; i < WRITES; i++) {
            var r = leader.post("/api/v1/kv", "[{\"op\":\"put\",\"ns\":\"ready\",\"key\":\"k" + i
                    + "\",\"value\":\"" + value + "\",\"forever\":true}]");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        long committed = leader.node.replicated().division().getRaftLog().getLastCommittedIndex();

        LocalNode back = LocalNode.restart(follower);
        nodes.add(back);
        await("the member back to answer ready").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
                .until(() -> back.get("/readyz").statusCode() == 200);
        long applied = back.node.replicated().division().getInfo().getLastAppliedIndex();
        assertThat(applied).as("applied index of the member when it first answered ready").isGreaterThanOrEqualTo(committed);
    }
}
