package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.NodeProcessCluster;

/** SIGTERM on the leader hands leadership to another member before it exits; writes continue. */
@Timeout(150)
class GracefulStopTest {
    static final String NS = "graceful";

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    @Test
    void sigtermOnTheLeaderHandsLeadershipOverFirst() {
        cluster = logs.watch(new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"))).start();
        List<String> urls = cluster.ids().stream().map(cluster::url).toList();
        try (AckedWriter writer = new AckedWriter(NS, "w", () -> urls, Duration.ofSeconds(3)).start()) {
            writer.awaitAcksSince(0, 20, Duration.ofSeconds(20));
            String leader = cluster.leaderId();

            long stopping = System.nanoTime();
            cluster.stop(leader); // SIGTERM, waits for the exit
            double stopSeconds = (System.nanoTime() - stopping) / 1e9;
            assertThat(ClusterChecks.log(cluster, leader)).as("%s's log", leader).contains("handed leadership to");
            String newLeader = cluster.leaderId(Duration.ofSeconds(5));
            assertThat(newLeader).isNotEqualTo(leader);
            double resumed = writer.awaitAcksSince(stopping, 5, Duration.ofSeconds(5));
            ClusterChecks.say("SIGTERM on leader %s: exited in %.1f s, leadership with %s, 5 writes acknowledged %.1f s after the signal",
                    leader, stopSeconds, newLeader, resumed);

            writer.awaitAcksSince(System.nanoTime(), 30, Duration.ofSeconds(20));
            cluster.restart(leader);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));
            writer.stop();
            ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
            writer.assertNoneLost(cluster.url(leader));
            ClusterChecks.say("graceful stop: longest pause between acknowledgements %d ms", writer.maxGap().toMillis());
        }
    }
}
