package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * A write a follower forwards to the leader holds one of its threads; when the caller's deadline
 * passes, the call is cancelled and the thread freed, not left waiting on a leader that never
 * answers. Here the other two members are paused (SIGSTOP), so the forwarded call can only wait.
 */
@Timeout(180)
class ForwardedCallTest {
    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;
    List<String> paused = List.of();

    @AfterEach
    void close() {
        if (cluster == null) return;
        for (String id : paused) cluster.resume(id);
        cluster.close();
    }

    @Test
    void aForwardedWriteTheCallerGaveUpOnIsCancelledAndItsThreadFreed() {
        cluster = logs.watch(new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000"))).start();
        String follower = cluster.anyFollower();
        paused = cluster.ids().stream().filter(id -> !id.equals(follower)).toList();
        for (String id : paused) cluster.pause(id);

        KvHttp.Reply reply = new KvHttp(Duration.ofSeconds(30)).put(cluster.url(follower), "fwd", "k", KvHttp.value(1));
        assertThat(reply.status()).as("%s", reply).isEqualTo(503);
        assertThat(reply.body().path("reason").asText()).as("%s", reply).isEqualTo("kv_timeout");
        // Cancelled at the deadline: the thread is back at once, though the Raft client would retry for a minute.
        await("the forwarding thread to be freed").atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(100))
                .until(() -> forwardedCalls(cluster.url(follower)) == 0);
    }

    private static double forwardedCalls(String url) {
        return ClusterChecks.metric(url, "queen_kv_raft_forwarded_calls").orElseThrow();
    }
}
