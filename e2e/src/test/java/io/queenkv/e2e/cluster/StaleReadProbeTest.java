package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.node.TextNode;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * A leader paused right after a write and a read through it, a write acknowledged by the new
 * leader, reads queued at the paused node, then the node resumed: no read may answer the old value.
 * It fails today (2 stale reads of 63 answered in 5 rounds, 2026-12-07): Ratis 3.3 answers a
 * ReadIndex at a commit index a majority already acknowledged without a new heartbeat round, so the
 * resumed node answers from its old state before it learns it was deposed. Disabled until the read
 * path confirms leadership per round; the sleep lets the queued reads reach the paused node, which
 * no event shows.
 */
@Disabled("known stale read after a leader pause: Ratis skips the heartbeat round at an acknowledged commit index (issue 12 note)")
@Timeout(300)
class StaleReadProbeTest {
    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    @Test
    void aResumedLeaderAnswersNoReadThatMissesTheNewLeadersWrite() throws Exception {
        cluster = logs.watch(new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"))).start();
        KvHttp http = new KvHttp(Duration.ofSeconds(8));
        List<String> stale = new ArrayList<>();
        int answered = 0;
        for (int round = 0; round < 5; round++) {
            String old = cluster.leaderId();
            String key = "k" + round;
            assertThat(http.put(cluster.url(old), "probe", key, new TextNode("v1")).ok()).isTrue();
            for (int i = 0; i < 3; i++) assertThat(http.get(cluster.url(old), "probe", key).ok()).isTrue();
            cluster.pause(old);
            String next = cluster.leaderId(Duration.ofSeconds(20));
            assertThat(http.put(cluster.url(next), "probe", key, new TextNode("v2")).ok()).isTrue();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Future<KvHttp.Reply>> reads = new ArrayList<>();
            for (int i = 0; i < 16; i++) reads.add(pool.submit(() -> http.get(cluster.url(old), "probe", key)));
            Thread.sleep(500); // the reads wait in the paused node's sockets
            cluster.resume(old);
            for (Future<KvHttp.Reply> f : reads) {
                KvHttp.Reply r = f.get();
                System.out.println("round " + round + " read at resumed " + old + ": " + r);
                if (r.ok()) {
                    answered++;
                    if (r.result(0).path("value").asText().equals("v1")) stale.add(r.toString());
                }
            }
            pool.shutdown();
            cluster.awaitReady(old, Duration.ofSeconds(60));
        }
        System.out.println("answered " + answered + ", stale " + stale.size());
        assertThat(stale).as("reads that missed an acknowledged write").isEmpty();
    }
}
