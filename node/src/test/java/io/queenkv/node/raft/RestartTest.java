package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.api.Json;
import io.queenkv.node.testing.NodeProcess;

/**
 * A node restarted on its data directory answers exactly as before: same values, versions and
 * expiries; versions continue without reuse. Both after a clean stop (SIGTERM) and after SIGKILL,
 * from the log alone and from a snapshot plus the log after it.
 */
class RestartTest {
    @TempDir
    Path dir;

    @Test
    void sigtermThenRestartKeepsEverything() throws Exception {
        restartKeepsEverything(Map.of(), false);
    }

    @Test
    void sigkillThenRestartReplaysTheLog() throws Exception {
        restartKeepsEverything(Map.of(), true);
    }

    @Test
    void sigkillThenRestartLoadsTheSnapshotAndTheLogAfterIt() throws Exception {
        restartKeepsEverything(Map.of("QUEEN_KV_SNAPSHOT_EVERY", "20"), true);
        try (Stream<Path> files = Files.walk(dir.resolve("data"))) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(name -> name.matches("snapshot\\.\\d+_\\d+"));
        }
    }

    private void restartKeepsEverything(Map<String, String> env, boolean kill) throws Exception {
        Path data = dir.resolve("data");
        List<String> writes = new ArrayList<>();
        for (int i = 0; i < 40; i++)
            writes.add("{\"op\":\"put\",\"ns\":\"restart\",\"key\":\"k" + i + "\",\"value\":{\"n\":" + i + "},"
                    + (i % 2 == 0 ? "\"forever\":true" : "\"ttlSeconds\":3600") + "}");
        String readAll = "[{\"op\":\"getPrefix\",\"ns\":\"restart\",\"prefix\":\"k\",\"limit\":1000},"
                + "{\"op\":\"get\",\"ns\":\"restart\",\"key\":\"counter\"}]";

        JsonNode before;
        long lastVersion;
        try (NodeProcess node = new NodeProcess(data, dir.resolve("node.log"), env).start()) {
            // One entry per write so the log (and a low snapshot threshold) sees many entries.
            for (String w : writes) assertThat(node.send("POST", "/api/v1/kv", "[" + w + "]").statusCode()).isEqualTo(200);
            for (int i = 0; i < 5; i++)
                node.send("POST", "/api/v1/kv", "[{\"op\":\"incr\",\"ns\":\"restart\",\"key\":\"counter\",\"delta\":1.5,\"forever\":true}]");
            before = Json.MAPPER.readTree(node.send("POST", "/api/v1/kv", readAll).body());
            lastVersion = before.at("/results/1/version").asLong();
            if (kill) node.kill();
            else {
                // 143 = 128 + SIGTERM: the JVM's exit status after its shutdown hooks ran.
                assertThat(node.stop()).isEqualTo(143);
                assertThat(Files.readString(dir.resolve("node.log"))).contains("stopped cleanly");
            }
        }
        assertThat(before.at("/results/0/rows")).hasSize(40);
        assertThat(before.at("/results/1/value").decimalValue()).isEqualByComparingTo("7.5");

        try (NodeProcess node = new NodeProcess(data, dir.resolve("node.log"), env).start()) {
            JsonNode after = Json.MAPPER.readTree(node.send("POST", "/api/v1/kv", readAll).body());
            assertThat(after).isEqualTo(before);
            JsonNode next = Json.MAPPER.readTree(node.send("POST", "/api/v1/kv",
                    "[{\"op\":\"put\",\"ns\":\"restart\",\"key\":\"k0\",\"value\":1,\"forever\":true}]").body());
            assertThat(next.at("/results/0/version").asLong()).isGreaterThan(lastVersion);
        }
    }

    /**
     * The data dir holds the member stamp and the group's directory, nothing else: no directory of
     * a placeholder group, which would run a log of its own (with a write buffer sized for the
     * largest entry) beside the group's. One that an earlier version left is removed at start.
     */
    @Test
    void theDataDirHoldsOnlyTheGroupAndAPlaceholderGroupLeftBehindIsRemoved() throws Exception {
        Path data = dir.resolve("data");
        String put = "[{\"op\":\"put\",\"ns\":\"restart\",\"key\":\"k\",\"value\":1,\"forever\":true}]";
        String get = "[{\"op\":\"get\",\"ns\":\"restart\",\"key\":\"k\"}]";
        try (NodeProcess node = new NodeProcess(data, dir.resolve("node.log"), Map.of()).start()) {
            assertThat(node.send("POST", "/api/v1/kv", put).statusCode()).isEqualTo(200);
        }
        assertThat(entries(data)).hasSize(2).contains("queen-kv-member").anyMatch(RestartTest::isGroupDirectory);

        Path placeholder = Files.createDirectories(data.resolve("00000000-0000-0000-0000-000000000000").resolve("current"));
        Files.writeString(placeholder.resolve("raft-meta"), "term=0\nvotedFor=\n");
        try (NodeProcess node = new NodeProcess(data, dir.resolve("node.log"), Map.of()).start()) {
            JsonNode read = Json.MAPPER.readTree(node.send("POST", "/api/v1/kv", get).body());
            assertThat(read.at("/results/0/version").asLong()).isEqualTo(1);
        }
        assertThat(entries(data)).hasSize(2).doesNotContain("00000000-0000-0000-0000-000000000000");
    }

    private static List<String> entries(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).toList();
        }
    }

    private static boolean isGroupDirectory(String name) {
        return name.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
                && !name.equals("00000000-0000-0000-0000-000000000000");
    }
}
