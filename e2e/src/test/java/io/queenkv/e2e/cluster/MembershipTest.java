package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * Adding and removing members while a writer runs: a new node starts with no group ({@code /readyz}
 * 503), is added through {@code POST /api/v1/admin/members}, catches up ({@code /readyz} 200) and
 * then votes — after adding n4 and n5 to a 3-node cluster, killing two of the original nodes
 * (the leader among them) still leaves a working majority. Then members are removed, the leader
 * among them.
 */
@Timeout(300)
class MembershipTest {
    static final String NS = "members";

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    static List<String> memberIds(JsonNode body) {
        return body.path("members").findValuesAsText("id");
    }

    private void addMember(String id, List<String> writerUrls) {
        KvHttp http = ClusterChecks.HTTP;
        cluster.addNode(id);
        // Up, but not a member yet.
        assertThat(http.getJson(cluster.url(id), "/readyz").status()).as("%s /readyz before it is added", id).isEqualTo(503);
        String leader = cluster.leaderId();
        KvHttp.Reply added = http.adminAddMember(cluster.url(leader), id, cluster.raftAddress(id), cluster.httpAddress(id));
        assertThat(added.ok()).as("add %s: %s", id, added).isTrue();
        assertThat(memberIds(added.body())).contains(id);
        cluster.awaitReady(id, Duration.ofSeconds(60));
        writerUrls.add(cluster.url(id));
        ClusterChecks.say("%s added through %s and ready", id, leader);
    }

    @Test
    void addTwoMembersThatVoteThenRemoveMembersWhileWriting() {
        cluster = logs.watch(new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"))).start();
        List<String> urls = new CopyOnWriteArrayList<>(cluster.ids().stream().map(cluster::url).toList());
        try (AckedWriter writer = new AckedWriter(NS, "w", () -> urls, Duration.ofSeconds(3)).start()) {
            writer.awaitAcksSince(0, 20, Duration.ofSeconds(20));

            addMember("n4", urls);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));
            addMember("n5", urls);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));

            JsonNode status = ClusterChecks.HTTP.cluster(cluster.url(cluster.leaderId())).body();
            ClusterChecks.say("members after adding: %s", status.path("members"));
            assertThat(memberIds(status)).containsExactlyInAnyOrder("n1", "n2", "n3", "n4", "n5");

            // Two of the three original nodes die (the leader first): n4 and n5 make the majority.
            String leader = cluster.leaderId();
            String other = List.of("n1", "n2", "n3").stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
            cluster.kill9(leader);
            cluster.kill9(other);
            long killed = System.nanoTime();
            double took = writer.awaitAcksSince(killed, 10, Duration.ofSeconds(20));
            String newLeader = cluster.leaderId(Duration.ofSeconds(10));
            ClusterChecks.say("killed %s and %s: leader %s, writes acknowledged again after %.1f s", leader, other, newLeader, took);
            cluster.restart(leader);
            cluster.restart(other);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));

            // Remove n5 (a follower or not), then whichever node leads now.
            urls.remove(cluster.url("n5"));
            // Removing a member may first move leadership off it: give the call time.
            KvHttp admin = ClusterChecks.HTTP.withTimeout(Duration.ofSeconds(30));
            KvHttp.Reply removed = admin.adminRemoveMember(cluster.url(cluster.leaderId()), "n5");
            assertThat(removed.ok()).as("remove n5: %s", removed).isTrue();
            assertThat(memberIds(removed.body())).doesNotContain("n5").hasSize(4);
            cluster.removeFromHarness("n5");
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));

            String leaderNow = cluster.leaderId();
            String leaderUrl = cluster.url(leaderNow);
            urls.remove(leaderUrl);
            KvHttp.Reply removedLeader = admin.adminRemoveMember(leaderUrl, leaderNow);
            assertThat(removedLeader.ok()).as("remove the leader %s: %s", leaderNow, removedLeader).isTrue();
            assertThat(memberIds(removedLeader.body())).doesNotContain(leaderNow).hasSize(3);
            long removedAt = System.nanoTime();
            cluster.removeFromHarness(leaderNow);
            double afterRemoval = writer.awaitAcksSince(removedAt, 10, Duration.ofSeconds(20));
            String leaderAfter = cluster.leaderId(Duration.ofSeconds(10));
            ClusterChecks.say("removed the leader %s: leader now %s, writes acknowledged %.1f s later", leaderNow, leaderAfter, afterRemoval);
            await("every remaining node to list 3 members").atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                for (String id : cluster.ids())
                    assertThat(memberIds(ClusterChecks.HTTP.cluster(cluster.url(id)).body())).as("members on %s", id)
                            .containsExactlyInAnyOrderElementsOf(cluster.ids());
            });

            writer.stop();
            ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
            for (String id : cluster.ids()) writer.assertNoneLost(cluster.url(id));
        }
    }
}
