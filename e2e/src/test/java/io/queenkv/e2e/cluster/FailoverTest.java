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

/**
 * Failover, rejoin and full restart on a 3-node cluster with a writer running; no acknowledged
 * write is lost.
 */
@Timeout(240)
class FailoverTest {
    static final String NS = "failover";
    /** "Writes succeed again within a few seconds": election timeouts are 1–2 s. */
    static final Duration FAILOVER_BUDGET = Duration.ofSeconds(8);

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    private NodeProcessCluster startCluster() {
        return logs.watch(new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"))).start();
    }

    @Test
    void leaderKillFailsOverAndBothKilledNodesRejoin() {
        cluster = startCluster();
        List<String> urls = cluster.ids().stream().map(cluster::url).toList();
        try (AckedWriter writer = new AckedWriter(NS, "w", () -> urls, Duration.ofSeconds(3)).start()) {
            writer.awaitAcksSince(0, 20, Duration.ofSeconds(20));

            // SIGKILL the leader: writes go through the others again within a few seconds.
            String leader = cluster.leaderId();
            cluster.kill9(leader);
            long killed = System.nanoTime();
            double took = writer.awaitAcksSince(killed, 5, FAILOVER_BUDGET);
            String newLeader = cluster.leaderId(Duration.ofSeconds(10));
            ClusterChecks.say("leader %s killed: new leader %s, writes acknowledged again after %.1f s", leader, newLeader, took);
            assertThat(newLeader).isNotEqualTo(leader);

            // More writes while it is down, then it rejoins and catches up from the leader's log.
            writer.awaitAcksSince(System.nanoTime(), 50, Duration.ofSeconds(30));
            cluster.restart(leader);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));

            // SIGKILL a follower: writes do not stop; it rejoins as well.
            String follower = cluster.anyFollower();
            cluster.kill9(follower);
            long followerKilled = System.nanoTime();
            double followerGap = writer.awaitAcksSince(followerKilled, 5, FAILOVER_BUDGET);
            ClusterChecks.say("follower %s killed: writes acknowledged %.1f s later", follower, followerGap);
            writer.awaitAcksSince(System.nanoTime(), 50, Duration.ofSeconds(30));
            cluster.restart(follower);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));

            writer.stop();
            ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
            // Reads on the rejoined nodes are answered from their own state machines.
            writer.assertNoneLost(cluster.url(leader));
            writer.assertNoneLost(cluster.url(follower));
            ClusterChecks.say("failover: %d acknowledged, %d unknown, longest pause between acknowledgements %d ms",
                    writer.ackedCount(), writer.unknownCount(), writer.maxGap().toMillis());
        }
    }

    @Test
    void fullClusterRestartLosesNoAcknowledgedWrite() {
        cluster = startCluster();
        List<String> urls = cluster.ids().stream().map(cluster::url).toList();
        try (AckedWriter writer = new AckedWriter(NS, "r", () -> urls, Duration.ofSeconds(3)).start()) {
            writer.awaitAcksSince(0, 150, Duration.ofSeconds(30));

            // Every node dies at once (SIGKILL, the writer still running), then all come back.
            for (String id : cluster.ids()) cluster.kill9(id);
            int ackedAtCrash = writer.ackedCount();
            for (String id : cluster.ids()) cluster.restartNoWait(id);
            for (String id : cluster.ids()) cluster.awaitReady(id, NodeProcessCluster.READY_TIMEOUT);
            long back = System.nanoTime();
            writer.awaitAcksSince(back, 50, Duration.ofSeconds(30));
            ClusterChecks.say("full restart: %d writes acknowledged before the crash", ackedAtCrash);

            // And a graceful full stop (SIGTERM) and start.
            for (String id : cluster.ids()) cluster.stop(id);
            for (String id : cluster.ids()) cluster.restartNoWait(id);
            for (String id : cluster.ids()) cluster.awaitReady(id, NodeProcessCluster.READY_TIMEOUT);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(30));

            writer.stop();
            ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
            for (String id : cluster.ids()) writer.assertNoneLost(cluster.url(id));
        }
    }
}
