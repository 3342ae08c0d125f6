package io.queenkv.e2e.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * A follower that comes back far behind while writes pour in catches up, every time.
 *
 * <p>This is the case that once left a member behind for good: the leader, holding many pipelined
 * appends when the follower returns, rewinds to the follower's end once per refused append, so it
 * sends batches that start at the same index while the follower, a JVM just started, is still
 * writing the first. Ratis 3.3's follower answered such a repeat as appended without appending it,
 * the leader took the follower as matched past its log, and never sent it the gap. Over mutual TLS
 * (slower, so the window is wider) with several writers, a few rounds of kill, write, restart.
 */
@Timeout(300)
class FollowerCatchUpTest {
    static final String NS = "catchup";
    static final int ROUNDS = 4, WRITERS = 6;

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    @Test
    void aFollowerFarBehindCatchesUpWhileWritesGoOn() {
        cluster = logs.watch(new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"), true)).start();
        for (int round = 1; round <= ROUNDS; round++) {
            String leader = cluster.leaderId(NodeProcessCluster.LEADER_TIMEOUT);
            String follower = cluster.ids().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
            List<AckedWriter> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++)
                writers.add(new AckedWriter(NS, "r" + round + "w" + w + "-", () -> List.of(cluster.url(leader)), Duration.ofSeconds(5)).start());
            try {
                writers.get(0).awaitAcksSince(0, 20, Duration.ofSeconds(20));
                cluster.kill9(follower);
                // The follower misses a few hundred entries, then returns while the writers go on.
                long down = System.nanoTime();
                for (AckedWriter w : writers) w.awaitAcksSince(down, 80, Duration.ofSeconds(60));
                cluster.restart(follower);
                long back = System.nanoTime();
                for (AckedWriter w : writers) w.awaitAcksSince(back, 40, Duration.ofSeconds(60));
            } finally {
                writers.forEach(AckedWriter::stop);
            }
            long index = ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
            ClusterChecks.say("round %d: follower %s came back and caught up with leader %s at applied index %d",
                    round, follower, leader, index);
            for (AckedWriter w : writers) w.assertNoneLost(cluster.url(follower));
        }
    }
}
