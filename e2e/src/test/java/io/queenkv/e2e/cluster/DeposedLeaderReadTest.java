package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
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
 * Ratis 3.3 answers a ReadIndex at a commit index a majority already acknowledged without a new
 * heartbeat round, so without the node's own leadership check (LeadershipCheck) the resumed node
 * answered from its old state before it learned it was deposed (2 stale reads of 63 answered in 5
 * rounds, 2026-12-07). The resumed node must then answer the new value.
 */
@Timeout(300)
class DeposedLeaderReadTest {
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
            int port = URI.create(cluster.url(old)).getPort();
            await("16 reads waiting in the paused node's sockets").atMost(Duration.ofSeconds(20))
                    .until(() -> requestsWaitingAt(port) >= 16);
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
            await("the resumed node answers the new value").atMost(Duration.ofSeconds(30)).until(() -> {
                KvHttp.Reply r = http.get(cluster.url(old), "probe", key);
                return r.ok() && r.result(0).path("value").asText().equals("v2");
            });
        }
        System.out.println("answered " + answered + ", stale " + stale.size());
        assertThat(stale).as("reads that missed an acknowledged write").isEmpty();
    }

    /** Connections to {@code port} on loopback whose request bytes the server has not read yet (the kernel's receive queue). */
    private static long requestsWaitingAt(int port) throws IOException {
        long waiting = 0;
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.exists(path)) continue;
            List<String> lines = Files.readAllLines(path, StandardCharsets.US_ASCII);
            for (String line : lines.subList(1, lines.size())) {
                // sl local_address rem_address st tx_queue:rx_queue ...
                String[] f = line.trim().split("\\s+");
                int localPort = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16);
                long received = Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16);
                if (localPort == port && "01".equals(f[3]) && received > 0) waiting++;
            }
        }
        return waiting;
    }
}
