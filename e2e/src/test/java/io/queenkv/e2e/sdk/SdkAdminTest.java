package io.queenkv.e2e.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.client.QueenKvAdmin;
import io.queenkv.client.QueenKvRefusedException;
import io.queenkv.client.QueenKvUnavailableException;
import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * The SDK's admin client ({@link QueenKvAdmin}, what the operator drives the nodes with) against a real three-node
 * cluster: each node's view of the group, readiness, settings through the log, a leadership hand-off, and the
 * node's refusals and a node that does not answer as the SDK's exceptions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SdkAdminTest {
    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();

    private NodeProcessCluster cluster;

    @BeforeAll
    void start() {
        cluster = new NodeProcessCluster(3, Map.of()).start();
    }

    @AfterAll
    void stop() {
        if (cluster != null) cluster.close();
    }

    private QueenKvAdmin admin(String id) {
        return QueenKvAdmin.builder().endpoint(cluster.url(id)).build();
    }

    @Test
    void readsEveryNodesViewChangesSettingsAndHandsLeadershipOver() {
        logs.watch(cluster);
        String leader = cluster.leaderId();
        for (String id : cluster.ids()) {
            try (QueenKvAdmin node = admin(id)) {
                QueenKvAdmin.ClusterView view = node.cluster();
                assertThat(view.nodeId()).isEqualTo(id);
                assertThat(view.members()).extracting(QueenKvAdmin.Member::id).containsExactlyInAnyOrderElementsOf(cluster.ids());
                assertThat(view.leaderId()).isEqualTo(leader);
                assertThat(view.settings().writeRate()).isPositive();
                assertThat(node.ready()).isTrue();
            }
        }

        String follower = cluster.ids().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
        try (QueenKvAdmin node = admin(follower)) {
            long before = node.cluster().settingsIndex();
            QueenKvAdmin.SettingsChange change = node.changeSettings(new QueenKvAdmin.Settings(null, null, null, null, 4321, null));
            assertThat(change.settings().writeRate()).isEqualTo(4321);
            assertThat(change.settingsIndex()).isGreaterThan(before);
            for (String id : cluster.ids())
                await(id + " to apply the settings").atMost(Duration.ofSeconds(10))
                        .until(() -> admin(id).cluster().settings().writeRate() == 4321);

            assertThat(node.transferLeadership(follower)).isEqualTo(follower);
            await("every node to know the new leader").atMost(Duration.ofSeconds(10))
                    .until(() -> cluster.ids().stream().allMatch(id -> follower.equals(admin(id).cluster().leaderId())));

            assertThatThrownBy(() -> node.removeMember("n9")).isInstanceOfSatisfying(QueenKvRefusedException.class, e -> {
                assertThat(e.status()).isEqualTo(404);
                assertThat(e.error()).isEqualTo("not_found");
                assertThat(e.getMessage()).contains("DELETE /api/v1/admin/members/n9", "no member 'n9'").doesNotContain("java.");
            });
        }
    }

    @Test
    void aNodeThatDoesNotAnswerIsUnavailableAndNotReady() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        try (QueenKvAdmin nobody = QueenKvAdmin.builder().endpoint("http://127.0.0.1:" + closed).build()) {
            assertThat(nobody.ready()).isFalse();
            assertThatThrownBy(nobody::cluster).isInstanceOfSatisfying(QueenKvUnavailableException.class, e -> {
                assertThat(e.reason()).isEqualTo("connection_failed");
                assertThat(e.getMessage()).contains("GET /api/v1/cluster", "could not connect").doesNotContain("java.");
            });
        }
    }
}
