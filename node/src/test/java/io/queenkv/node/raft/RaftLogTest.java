package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.api.Json;
import io.queenkv.node.testing.NodeProcess;

/**
 * What the Raft log holds: one entry per write call, nothing of Ratis' own beside it; and it is
 * purged up to each snapshot, so a log segment that closed before a snapshot was written is gone
 * once that snapshot is, however few entries came since the last purge.
 */
class RaftLogTest {
    @TempDir
    Path dir;

    @Test
    void aWriteCallIsOneLogEntry() throws Exception {
        try (NodeProcess node = new NodeProcess(dir.resolve("data"), dir.resolve("node.log"), Map.of("QUEEN_KV_WRITE_RATE", "100000")).start()) {
            put(node, "first", "1");
            // The leader commits the seed settings on its own once, on a timer: counted, it would
            // be a 21st entry (as it was in CI), so the count starts after it.
            await("the seed settings committed").atMost(Duration.ofSeconds(10))
                    .until(() -> Json.MAPPER.readTree(node.send("GET", "/api/v1/cluster", null).body()).get("settingsIndex").asLong() > 0);
            long before = awaitSettledCommitIndex(node);
            // One after the other, so no two calls share a group (one entry).
            for (int i = 0; i < 20; i++) put(node, "k" + i, String.valueOf(i));
            assertThat(awaitSettledCommitIndex(node) - before).as("log entries for 20 write calls").isEqualTo(20);
        }
    }

    /** The commit index once this node applied up to it. */
    private static long awaitSettledCommitIndex(NodeProcess node) {
        long[] seen = new long[1];
        await("the node applied up to its commit index").atMost(Duration.ofSeconds(10)).until(() -> {
            String metrics = node.send("GET", "/metrics", null).body();
            long commit = gauge(metrics, "queen_kv_raft_commit_index"), applied = gauge(metrics, "queen_kv_raft_applied_index");
            seen[0] = commit;
            return commit == applied;
        });
        return seen[0];
    }

    private static long gauge(String metrics, String name) {
        return metrics.lines().filter(l -> l.startsWith(name + " ")).mapToLong(l -> (long) Double.parseDouble(l.substring(name.length() + 1)))
                .findFirst().orElseThrow(() -> new AssertionError(name + " not in /metrics"));
    }

    @Test
    void theFirstSnapshotPastAClosedSegmentPurgesIt() throws Exception {
        Path data = dir.resolve("data");
        Map<String, String> env = Map.of(
                "QUEEN_KV_SNAPSHOT_EVERY", "10",
                "QUEEN_KV_WRITE_RATE", "100000",
                "QUEEN_KV_MAX_VALUE_BYTES", String.valueOf(16L << 20));
        try (NodeProcess node = new NodeProcess(data, dir.resolve("node.log"), env).start()) {
            for (int i = 0; i < 10; i++) put(node, "small", "\"" + i + "\"");
            // A segment holds up to 66 MiB (the largest entry and some): five 15 MiB values close one.
            String big = "\"" + "x".repeat(15 << 20) + "\"";
            for (int i = 0; i < 5; i++) put(node, "big", big);
            assertThat(logFiles(data)).as("a closed segment and an open one").hasSizeGreaterThanOrEqualTo(2);
            long closedEnd = logFiles(data).stream().filter(n -> !n.startsWith("log_inprogress_"))
                    .mapToLong(n -> Long.parseLong(n.substring(n.indexOf('-') + 1))).max().orElseThrow();
            // Ten more entries make a snapshot due past the closed segment. It is written off the apply
            // thread, and Ratis hears of it (and purges) when it asks again, at a later apply: so the
            // writes go on, one per poll, far fewer than Ratis' default purge gap of 1,024 entries.
            AtomicInteger more = new AtomicInteger();
            await("the log purged up to the snapshot past index " + closedEnd)
                    .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        put(node, "small", "\"" + more.incrementAndGet() + "\"");
                        return firstIndex(logFiles(data)) > closedEnd;
                    });
            assertThat(more.get()).isLessThan(1_000);
            assertThat(logFiles(data)).allMatch(n -> n.startsWith("log_inprogress_"));
        }
    }

    private static void put(NodeProcess node, String key, String value) throws IOException {
        var r = node.send("POST", "/api/v1/kv",
                "[{\"op\":\"put\",\"ns\":\"purge\",\"key\":\"" + key + "\",\"value\":" + value + ",\"forever\":true}]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode body = Json.MAPPER.readTree(r.body());
        assertThat(body.at("/results/0/applied").asBoolean()).isTrue();
    }

    /** The names of the Raft log's segment files: {@code log_<first>-<last>} closed, {@code log_inprogress_<first>} open. */
    private static List<String> logFiles(Path data) throws IOException {
        try (Stream<Path> files = Files.walk(data)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("log_")).toList();
        }
    }

    private static long firstIndex(List<String> logFiles) {
        return logFiles.stream().mapToLong(n -> Long.parseLong(n.replace("log_inprogress_", "").replace("log_", "").split("-")[0]))
                .min().orElse(-1);
    }
}
