package io.queenkv.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;
import io.queenkv.e2e.linearizability.KvRecorder;

/**
 * Proves the harness on a real 3-node cluster: a write through a follower is read back on every
 * node, the leader dies by SIGKILL, a new leader takes writes within seconds, and the killed node
 * catches up after its restart. The operations are recorded and checked for linearizability.
 */
@Timeout(120)
class ClusterSmokeTest {
    static final String NS = "smoke";

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    @Test
    void writeThroughFollowerSurviveLeaderKillAndCatchUp() {
        cluster = logs.watch(new NodeProcessCluster(3)).start();
        KvHttp http = cluster.http();
        KvRecorder rec = new KvRecorder(new KvHttp(Duration.ofSeconds(5)));

        String leader = cluster.leaderId();
        String follower = cluster.ids().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();

        // 1. A write through a follower (forwarded to the leader), then a linearizable read on every node.
        KvHttp.Reply put = rec.put(1, cluster.url(follower), NS, "greeting", KvHttp.value("hello"));
        assertThat(put.ok()).as("put through follower %s: %s", follower, put).isTrue();
        JsonNode written = put.result(0);
        assertThat(written.path("applied").asBoolean()).isTrue();
        long version = written.path("version").asLong();
        for (String id : cluster.ids()) {
            KvHttp.Reply get = rec.get(2, cluster.url(id), NS, "greeting");
            assertThat(get.ok()).as("get on %s: %s", id, get).isTrue();
            assertThat(get.result(0).path("found").asBoolean()).as("found on %s", id).isTrue();
            assertThat(get.result(0).path("value").asText()).isEqualTo("hello");
            assertThat(get.result(0).path("version").asLong()).isEqualTo(version);
        }

        // 2. SIGKILL the leader; a new leader and a successful write within ~10 s.
        cluster.kill9(leader);
        long killedAt = System.nanoTime();
        String newLeader = cluster.leaderId(Duration.ofSeconds(10));
        assertThat(newLeader).isNotEqualTo(leader);
        AtomicReference<KvHttp.Reply> after = new AtomicReference<>();
        await("a write after the leader died").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    String target = cluster.liveIds().get(0);
                    KvHttp.Reply r = rec.put(3, cluster.url(target), NS, "greeting", KvHttp.value("after-failover"));
                    after.set(r);
                    return r.ok();
                });
        System.out.printf("[e2e] new leader %s, write accepted %.1f s after SIGKILL of %s%n", newLeader,
                (System.nanoTime() - killedAt) / 1e9, leader);
        long newVersion = after.get().result(0).path("version").asLong();
        assertThat(newVersion).isGreaterThan(version);

        // 3. Restart the killed node: it catches up and serves the new value.
        cluster.restart(leader);
        await("restarted " + leader + " to serve the latest value").atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                    KvHttp.Reply get = rec.get(4, cluster.url(leader), NS, "greeting");
                    assertThat(get.ok()).as("%s", get).isTrue();
                    assertThat(get.result(0).path("value").asText()).isEqualTo("after-failover");
                    assertThat(get.result(0).path("version").asLong()).isEqualTo(newVersion);
                });
        for (String id : cluster.ids()) {
            KvHttp.Reply get = rec.get(5, cluster.url(id), NS, "greeting");
            assertThat(get.ok()).as("get on %s: %s", id, get).isTrue();
        }

        rec.check().assertLinearizable();
    }
}
