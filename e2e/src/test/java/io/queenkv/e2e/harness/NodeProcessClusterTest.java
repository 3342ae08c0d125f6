package io.queenkv.e2e.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The harness's other fault and membership operations, on one 3-node cluster: SIGTERM + restart,
 * SIGSTOP/SIGCONT of the leader, and a fourth node started outside the peer list, added and
 * removed through the admin API.
 */
@Timeout(150)
class NodeProcessClusterTest {
    static final String NS = "harness";

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    private void awaitWrite(String what, String key, String value) {
        KvHttp http = cluster.http();
        await(what).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .until(() -> http.put(cluster.url(cluster.liveIds().get(0)), NS, key, KvHttp.value(value)).ok());
    }

    private static List<String> memberIds(KvHttp.Reply reply) {
        return reply.body().path("members").findValuesAsText("id");
    }

    @Test
    void stopPauseAddAndRemove() {
        cluster = logs.watch(new NodeProcessCluster(3)).start();
        KvHttp http = cluster.http();

        // SIGTERM the leader (it hands leadership off), restart it, it is ready again.
        String leader = cluster.leaderId();
        cluster.stop(leader);
        assertThat(cluster.node(leader).running()).isFalse();
        String second = cluster.leaderId(Duration.ofSeconds(10));
        assertThat(second).isNotEqualTo(leader);
        awaitWrite("a write after SIGTERM of the leader", "a", "1");
        cluster.restart(leader);
        assertThat(cluster.liveIds()).hasSize(3);

        // SIGSTOP the leader: the others elect a new one; SIGCONT: it rejoins as a follower.
        cluster.pause(second);
        assertThat(cluster.liveIds()).doesNotContain(second);
        String third = cluster.leaderId(Duration.ofSeconds(15));
        assertThat(third).isNotEqualTo(second);
        awaitWrite("a write while the old leader is paused", "b", "2");
        cluster.resume(second);
        cluster.awaitReady(second, Duration.ofSeconds(20));
        await("the resumed node to follow " + third).atMost(Duration.ofSeconds(15))
                .until(() -> third.equals(http.cluster(cluster.url(second)).body().path("leaderId").asText()));

        // A fourth node outside the peer list: up, but not ready until it is added.
        cluster.addNode("n4");
        assertThat(http.getJson(cluster.url("n4"), "/readyz").status()).isEqualTo(503);
        String leaderNow = cluster.leaderId();
        KvHttp.Reply added = http.adminAddMember(cluster.url(leaderNow), "n4", cluster.raftAddress("n4"), cluster.httpAddress("n4"));
        assertThat(added.ok()).as("add n4: %s", added).isTrue();
        assertThat(memberIds(added)).contains("n1", "n2", "n3", "n4");
        cluster.awaitReady("n4", Duration.ofSeconds(30));
        await("n4 to serve b").atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            KvHttp.Reply get = http.get(cluster.url("n4"), NS, "b");
            assertThat(get.ok()).as("%s", get).isTrue();
            assertThat(get.result(0).path("value").asText()).isEqualTo("2");
        });

        // Remove it again through the admin API, then from the harness.
        KvHttp.Reply removed = http.adminRemoveMember(cluster.url(cluster.leaderId()), "n4");
        assertThat(removed.ok()).as("remove n4: %s", removed).isTrue();
        assertThat(memberIds(removed)).containsExactlyInAnyOrder("n1", "n2", "n3");
        cluster.removeFromHarness("n4");
        assertThat(cluster.ids()).containsExactly("n1", "n2", "n3");
        JsonNode status = http.cluster(cluster.url(cluster.leaderId())).body();
        assertThat(status.path("members").findValuesAsText("id")).containsExactlyInAnyOrder("n1", "n2", "n3");
        awaitWrite("a write after removing n4", "c", "3");
    }
}
