package io.queenkv.e2e.cluster;

import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * A follower that was down while the leader snapshotted and purged its log catches up from a
 * snapshot the leader installs on it ({@code QUEEN_KV_SNAPSHOT_EVERY=10}), with a writer running.
 */
@Timeout(180)
class SnapshotInstallTest {
    static final String NS = "snap";

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    /** Overwrites a few keys with ~60 KB values from three threads until {@code bytes} were written. */
    static void bulkWrite(String url, long bytes) {
        String big = "x".repeat(60_000);
        int calls = (int) (bytes / big.length()) + 1;
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger ok = new java.util.concurrent.atomic.AtomicInteger();
        KvHttp http = new KvHttp(Duration.ofSeconds(10));
        List<Thread> threads = new java.util.ArrayList<>();
        long t0 = System.nanoTime();
        for (int t = 0; t < 3; t++) {
            Thread th = new Thread(() -> {
                for (int i; (i = next.getAndIncrement()) < calls; )
                    if (http.put(url, NS, "bulk-" + (i % 8), KvHttp.value(big + i)).ok()) ok.incrementAndGet();
            });
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) {
            try {
                th.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ClusterChecks.say("bulk: %d of %d 60 KB puts acknowledged in %.1f s", ok.get(), calls, (System.nanoTime() - t0) / 1e9);
    }

    /**
     * Waits until the node's log (Ratis segment files {@code log_<first>-<last>} and
     * {@code log_inprogress_<first>}) starts after {@code index}: it was purged up to a snapshot,
     * so a follower that has nothing past {@code index} can only catch up from a snapshot.
     */
    long awaitLogStartsAfter(String id, long index) {
        Path dir = cluster.node(id).dataDir();
        java.util.concurrent.atomic.AtomicLong first = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicReference<List<String>> seen = new java.util.concurrent.atomic.AtomicReference<>();
        await(id + " to purge its log past index " + index).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    try (Stream<Path> files = Files.walk(dir)) {
                        List<String> logs = files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("log_")).toList();
                        seen.set(logs);
                        long min = logs.stream().mapToLong(n -> Long.parseLong(n.replace("log_inprogress_", "").replace("log_", "").split("-")[0]))
                                .min().orElse(-1);
                        first.set(min);
                        return min > index;
                    }
                });
        ClusterChecks.say("%s log segments %s: its log starts at %d > %d", id, seen.get(), first.get(), index);
        return first.get();
    }

    @Test
    void laggingFollowerGetsTheLeadersSnapshot() {
        cluster = logs.watch(new NodeProcessCluster(3, Map.of(
                "QUEEN_KV_SNAPSHOT_EVERY", "10",
                "QUEEN_KV_WRITE_RATE", "100000",
                "QUEEN_KV_READ_RATE", "100000"))).start();
        String leader = cluster.leaderId();
        String follower = cluster.anyFollower();
        List<String> urls = cluster.ids().stream().map(cluster::url).toList();

        try (AckedWriter writer = new AckedWriter(NS, "w", () -> urls, Duration.ofSeconds(3)).start()) {
            writer.awaitAcksSince(0, 20, Duration.ofSeconds(20));
            cluster.kill9(follower);
            long killed = System.nanoTime();
            long appliedBefore = ClusterChecks.appliedIndex(cluster, leader); // the follower has at most this
            // Far more entries than the snapshot interval while the follower is down, and enough
            // bytes that the leader's log rolls over a segment (67 MiB) and is purged up to its snapshot.
            bulkWrite(cluster.url(leader), 80L << 20);
            writer.awaitAcksSince(killed, 200, Duration.ofSeconds(60));
            // Every member's log now starts past anything the follower has: it needs a snapshot.
            for (String id : cluster.ids()) if (!id.equals(follower)) awaitLogStartsAfter(id, appliedBefore + 1);
            ClusterChecks.say("leader %s applied %d -> %d while %s was down", leader, appliedBefore,
                    ClusterChecks.appliedIndex(cluster, leader), follower);

            cluster.restartNoWait(follower);
            try {
                cluster.awaitReady(follower, Duration.ofSeconds(45));
            } catch (AssertionError e) {
                throw new AssertionError(follower + " did not catch up after the restart\n"
                        + ClusterChecks.firstErrors(cluster, List.of(follower)), e);
            }
            long restarted = System.nanoTime();
            writer.awaitAcksSince(restarted, 50, Duration.ofSeconds(30));
            writer.stop();
            ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
            // A read on the restarted follower is answered from its own state machine.
            writer.assertNoneLost(cluster.url(follower));
            writer.assertNoneLost(cluster.url(cluster.leaderId()));
        }
    }
}
