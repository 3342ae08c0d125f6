package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * Backup and restore through node processes: a backup streamed from a follower of a 3-node
 * cluster while a writer keeps writing, then a new 3-node cluster created from the file
 * ({@code QUEEN_KV_RESTORE_FROM}) holds every row exactly as it was (value, version, expiry, last
 * update), every write acknowledged before the backup began, and gives out versions above every
 * version the first cluster gave.
 */
@Timeout(300)
class BackupRestoreTest {
    static final String NS = "backup";
    static final Map<String, String> RATES = Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000");

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    final KvHttp http = new KvHttp(Duration.ofSeconds(5));
    @TempDir
    Path dir;
    NodeProcessCluster source;
    NodeProcessCluster restored;

    @AfterEach
    void close() {
        if (source != null) source.close();
        if (restored != null) restored.close();
    }

    @Test
    void aBackupTakenUnderWritesRestoresIntoANewClusterRowForRow() throws Exception {
        source = logs.watch(new NodeProcessCluster(3, RATES, false)).start();
        String leader = source.url(source.leaderId());
        writeRows(leader);
        Map<String, JsonNode> rowsBefore = readRows(leader, NS, "k");
        assertThat(rowsBefore).hasSize(501); // k0..k499 and the counter

        Path file = dir.resolve("kv.backup");
        HttpResponse<Path> backup;
        Map<String, Long> ackedBeforeBackup;
        List<String> urls = source.ids().stream().map(source::url).toList();
        try (AckedWriter writer = new AckedWriter("during", "w", () -> urls, Duration.ofSeconds(3)).start()) {
            writer.awaitAcksSince(0, 20, Duration.ofSeconds(20));
            ackedBeforeBackup = writer.acked();
            backup = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(source.url(source.anyFollower()) + "/api/v1/admin/backup")).timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofFile(file));
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));
            writer.stop();
        }
        assertThat(backup.statusCode()).isEqualTo(200);
        long keysInBackup = Long.parseLong(backup.headers().firstValue("X-Queen-KV-Keys").orElseThrow());
        assertThat(keysInBackup).as("the rows and at least the writes acknowledged before the backup")
                .isGreaterThanOrEqualTo(rowsBefore.size() + ackedBeforeBackup.size());
        assertThat(http.put(leader, NS, "k-after", KvHttp.value(0)).ok()).as("a write after the backup, not in it").isTrue();

        restored = logs.watch(new NodeProcessCluster(3, withRestore(file), false)).start();
        assertThat(restored.clusterId()).isNotEqualTo(source.clusterId());
        String member = restored.url(restored.anyFollower());
        Map<String, JsonNode> rowsRestored = readRows(member, NS, "k");
        assertThat(rowsRestored).as("every row as it was: value, version, expiry, last update").isEqualTo(rowsBefore);
        Map<String, JsonNode> during = ClusterChecks.readAll(member, "during", new ArrayList<>(ackedBeforeBackup.keySet()));
        ackedBeforeBackup.forEach((key, version) -> assertThat(during.containsKey(key) ? during.get(key).path("version").asLong() : null)
                .as("write %s acknowledged before the backup", key).isEqualTo(version));
        long highest = java.util.stream.Stream.concat(rowsRestored.values().stream(), readRows(member, "during", "w").values().stream())
                .mapToLong(row -> row.path("version").asLong()).max().orElseThrow();

        KvHttp.Reply fresh = http.put(restored.url(restored.leaderId()), NS, "fresh", KvHttp.value(1));
        assertThat(fresh.ok()).as("write on the restored cluster: %s", fresh).isTrue();
        assertThat(fresh.result(0).path("version").asLong()).as("a version above every restored one").isGreaterThan(highest);
    }

    private static Map<String, String> withRestore(Path file) {
        Map<String, String> env = new java.util.HashMap<>(RATES);
        env.put("QUEEN_KV_RESTORE_FROM", file.toString());
        return env;
    }

    /** 300 rows forever, 200 with a day to live (each overwritten once), a counter; 20 of the first deleted again. */
    private void writeRows(String url) {
        for (int from = 0; from < 520; from += 100) {
            ArrayNode ops = JsonNodeFactory.instance.arrayNode();
            for (int i = from; i < from + 100 && i < 520; i++) {
                ops.add(i < 300 ? KvHttp.opPut(NS, "k" + i, KvHttp.value("value " + i))
                        : KvHttp.opPut(NS, "k" + i, KvHttp.value("value " + i), 86_400));
            }
            call(url, ops);
        }
        ArrayNode again = JsonNodeFactory.instance.arrayNode();
        for (int i = 300; i < 400; i++) again.add(KvHttp.opPut(NS, "k" + i, KvHttp.value(i), 2 * 86_400));
        call(url, again);
        for (int i = 0; i < 5; i++) assertThat(http.incr(url, NS, "kcounter", 7).ok()).isTrue();
        ArrayNode deletes = JsonNodeFactory.instance.arrayNode();
        for (int i = 500; i < 520; i++) deletes.add(JsonNodeFactory.instance.objectNode().put("op", "delete").put("ns", NS).put("key", "k" + i));
        call(url, deletes);
    }

    private void call(String url, ArrayNode ops) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.set("operations", ops);
        KvHttp.Reply r = http.batch(url, body);
        assertThat(r.ok()).as("write call: %s", r).isTrue();
    }

    /** Every row of {@code ns} under {@code prefix}, page by page, key to the whole row. */
    private Map<String, JsonNode> readRows(String url, String ns, String prefix) {
        Map<String, JsonNode> rows = new TreeMap<>();
        String after = null;
        do {
            ObjectNode op = JsonNodeFactory.instance.objectNode().put("op", "getPrefix").put("ns", ns).put("prefix", prefix).put("limit", 200);
            if (after != null) op.put("after", after);
            KvHttp.Reply r = http.call(url, op);
            assertThat(r.ok()).as("getPrefix: %s", r).isTrue();
            for (JsonNode row : r.result(0).path("rows")) rows.put(row.path("key").asText(), row);
            after = r.result(0).path("nextAfter").isNull() ? null : r.result(0).path("nextAfter").asText();
        } while (after != null);
        return rows;
    }
}
