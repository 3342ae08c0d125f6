package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.EarlierBuild;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * A cluster of an earlier version, rolled one member at a time to this build (highest ordinal first, as
 * a StatefulSet rolls, each rolled member made leader while the others still run the earlier version)
 * while writes go through every member: no acknowledged write is lost, no member skips an entry it
 * cannot apply, and the leader uses what the earlier version does not know only once every member runs
 * this build. Two earlier versions: the one before group commit (grouped entries), and the one before
 * grouped entries answered as sent (replies and idempotency records without the values the calls sent).
 * A rolled member answers ready while the leader still runs the earlier version: its linearizable
 * barrier asks the leader with a query that version refuses, and falls back to Ratis' ReadIndex.
 */
@Timeout(1200)
class RollingUpgradeTest {
    /** The last commit whose nodes know no grouped log entries. */
    static final String BEFORE_GROUP_COMMIT = "189c980";
    /** The last commit whose nodes know no grouped entries answered as sent. */
    static final String BEFORE_ANSWERS_AS_SENT = "33f562f";
    static final String NS = "roll";

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    @Test
    void aRollFromTheVersionBeforeGroupCommitLosesNothingAndGroupsOnlyOnceEveryMemberRunsThisBuild() {
        roll(BEFORE_GROUP_COMMIT, "queen_kv_raft_grouped_writes_allowed");
    }

    @Test
    void aRollFromTheVersionBeforeAnswersAsSentLosesNothingAndAnswersAsSentOnlyOnceEveryMemberRunsThisBuild() {
        roll(BEFORE_ANSWERS_AS_SENT, "queen_kv_raft_answers_as_sent");
    }

    /** Rolls a cluster of {@code commit}'s build to this one; {@code gate} is 1 only on a leader that uses what it lacks. */
    private void roll(String commit, String gate) {
        Path earlier;
        try {
            earlier = EarlierBuild.nodeJar(commit);
        } catch (EarlierBuild.Unavailable e) {
            Assumptions.abort("no build of the earlier version here: " + e.getMessage());
            return;
        }
        cluster = logs.watch(new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000")));
        for (String id : cluster.ids()) cluster.runJar(id, earlier);
        cluster.start();
        List<String> urls = cluster.ids().stream().map(cluster::url).toList();
        List<AckedWriter> writers = new ArrayList<>();
        for (int w = 0; w < 8; w++) writers.add(new AckedWriter(NS, "w" + w + "-", () -> urls, Duration.ofSeconds(5)).start());
        try {
            writers.get(0).awaitAcksSince(0, 20, Duration.ofSeconds(30));
            List<String> order = new ArrayList<>(cluster.ids());
            java.util.Collections.reverse(order);
            for (int i = 0; i < order.size(); i++) {
                String id = order.get(i);
                cluster.stop(id);
                cluster.runJar(id, null);
                cluster.restart(id);
                long back = System.nanoTime();
                for (AckedWriter w : writers) w.awaitAcksSince(back, 20, Duration.ofSeconds(60));
                ClusterChecks.say("%s runs this build (%d of %d)", id, i + 1, order.size());
                if (i < order.size() - 1) {
                    // The risky moment: a leader of this build while a member runs the earlier version.
                    await(id + " to lead").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                        String leader = cluster.leaderId();
                        if (!leader.equals(id)) ClusterChecks.HTTP.adminTransferLeadership(cluster.url(leader), id);
                        return leader.equals(id);
                    });
                    long led = System.nanoTime();
                    for (AckedWriter w : writers) w.awaitAcksSince(led, 20, Duration.ofSeconds(60));
                    List<String> rolled = order.subList(0, i + 1);
                    await("no leader of this build uses " + gate + " while a member runs the earlier version")
                            .during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(200))
                            .until(() -> rolled.stream().noneMatch(r -> metric(r, gate) > 0));
                }
            }
            await("the leader to use " + gate + " once every member runs this build").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> cluster.ids().stream().anyMatch(id -> metric(id, gate) > 0));
            long grouped = System.nanoTime();
            for (AckedWriter w : writers) w.awaitAcksSince(grouped, 40, Duration.ofSeconds(60));
        } finally {
            writers.forEach(AckedWriter::stop);
        }
        assertThat(cluster.ids().stream().mapToDouble(id -> metric(id, "queen_kv_write_groups_sent_total")).sum())
                .as("groups sent after the roll").isPositive();
        ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
        for (String id : cluster.ids()) {
            for (AckedWriter w : writers) w.assertNoneLost(cluster.url(id));
            assertThat(ClusterChecks.log(cluster, id)).as("%s's log", id).doesNotContain("skipping log entry");
        }
    }

    /** A metric's value on a node; 0 when the node does not report it (the earlier version lacks some) or is restarting. */
    private double metric(String id, String name) {
        try {
            return ClusterChecks.metric(cluster.url(id), name).orElse(0);
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
