package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.Node;
import io.queenkv.node.api.Json;
import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.testing.LocalNode;

/**
 * A new cluster created from a backup ({@code QUEEN_KV_RESTORE_FROM}) holds every key with its value,
 * version and expiry, goes on counting versions where the backup stopped, hands the restored state to
 * a member that joins later, and restores nothing when it restarts.
 */
@Timeout(180)
class RestoreTest {
    @TempDir
    Path dir;
    final List<LocalNode> nodes = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        for (LocalNode n : nodes) n.close();
    }

    @Test
    void aClusterCreatedFromABackupHoldsEveryKeyVersionAndExpiry() throws Exception {
        LocalNode source = track(LocalNode.start(dir.resolve("source")));
        for (int i = 0; i < 150; i++) call(source, put("k" + i, "\"v" + i + "\"", i % 2 == 0 ? "\"ttlSeconds\":2592000" : "\"forever\":true"));
        call(source, put("k7", "{\"twice\":true}", "\"forever\":true")); // a second version
        call(source, "{\"op\":\"incr\",\"ns\":\"r\",\"key\":\"kcounter\",\"delta\":5,\"forever\":true}");
        call(source, "{\"op\":\"delete\",\"ns\":\"r\",\"key\":\"k3\"}"); // the counter moved past the last version held
        JsonNode before = rows(source);
        long lastVersion = call(source, put("kprobe", "0", "\"forever\":true")).path("version").asLong();
        call(source, "{\"op\":\"delete\",\"ns\":\"r\",\"key\":\"kprobe\"}");
        Path backup = dir.resolve("kv.backup");
        HttpResponse<Path> got = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(source.baseUrl + "/api/v1/admin/backup")).build(),
                HttpResponse.BodyHandlers.ofFile(backup));
        assertThat(got.statusCode()).isEqualTo(200);
        source.close();
        nodes.remove(source);

        nodes.addAll(LocalNode.startCluster(dir.resolve("restored"), 3,
                Map.of("QUEEN_KV_RESTORE_FROM", backup.toString(), "QUEEN_KV_CLUSTER_ID", "restored-cluster")));
        for (LocalNode n : nodes) assertThat(rows(n)).as("node %s", n.node.replicated().selfId()).isEqualTo(before);
        long next = call(nodes.get(0), put("kafter", "1", "\"forever\":true")).path("version").asLong();
        assertThat(next).as("the version counter goes on where the backup stopped").isGreaterThan(lastVersion);

        // A member that joins later gets the restored state from the leader (its log starts after the backup).
        String raft = Integer.toString(LocalNode.freePort()), http = Integer.toString(LocalNode.freePort());
        LocalNode joiner = track(LocalNode.startWithoutWaiting(dir.resolve("restored").resolve("n4"), Map.of(
                "QUEEN_KV_NODE_ID", "n4", "QUEEN_KV_RAFT_PORT", raft, "QUEEN_KV_HTTP_PORT", http,
                "QUEEN_KV_CLUSTER_ID", "restored-cluster", "QUEEN_KV_INITIAL_CLUSTER_STATE", "existing",
                "QUEEN_KV_PEERS", nodes.get(0).env.get("QUEEN_KV_PEERS"))));
        LocalNode leader = leader();
        HttpResponse<String> added = leader.post("/api/v1/admin/members",
                "{\"id\":\"n4\",\"raftAddress\":\"127.0.0.1:" + raft + "\",\"httpAddress\":\"127.0.0.1:" + http + "\"}");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
        joiner.awaitReady();
        LocalNode.awaitSettled(nodes);
        JsonNode joined = rows(joiner);
        assertThat(joined.size()).isEqualTo(before.size() + 1);
        for (JsonNode row : before) assertThat(joined).contains(row);

        // Restarted, a member keeps its log and restores nothing again (QUEEN_KV_RESTORE_FROM still set).
        LocalNode follower = nodes.stream().filter(n -> n != leader && n != joiner).findFirst().orElseThrow();
        follower.close();
        nodes.remove(follower);
        call(leader, put("kwhile-down", "2", "\"forever\":true"));
        LocalNode again = track(LocalNode.restart(follower));
        again.awaitReady();
        await().atMost(Duration.ofSeconds(30)).until(() -> rows(again).toString().contains("\"kwhile-down\""));
        assertThat(rows(again).toString()).contains("\"kafter\"");
    }

    @Test
    void aDamagedBackupStopsTheStartWithOneLine() throws IOException {
        Path damaged = dir.resolve("damaged.backup");
        Files.write(damaged, new byte[] {0x51, 0x4B, 0x56, 0x53, 0, 0, 0, 1, 7});
        Map<String, String> env = Map.of("QUEEN_KV_DATA_DIR", dir.resolve("d").toString(), "QUEEN_KV_RESTORE_FROM", damaged.toString(),
                "QUEEN_KV_HTTP_PORT", Integer.toString(LocalNode.freePort()), "QUEEN_KV_RAFT_PORT", Integer.toString(LocalNode.freePort()));
        assertThatThrownBy(() -> new Node(NodeConfig.fromEnv(env)).close())
                .isInstanceOf(NodeConfig.ConfigException.class)
                .hasMessageContaining("QUEEN_KV_RESTORE_FROM=" + damaged)
                .hasMessageContaining("is not a backup");
    }

    // ---------------------------------------------------------------------------------------------

    private LocalNode track(LocalNode n) {
        nodes.add(n);
        return n;
    }

    private LocalNode leader() {
        return await().atMost(Duration.ofSeconds(30)).until(() -> nodes.stream().filter(n -> n.node.replicated().membership().map(d -> d.getInfo().isLeader()).orElse(false)).findFirst(),
                java.util.Optional::isPresent).orElseThrow();
    }

    private static String put(String key, String value, String lifetime) {
        return "{\"op\":\"put\",\"ns\":\"r\",\"key\":\"" + key + "\",\"value\":" + value + "," + lifetime + "}";
    }

    private static JsonNode call(LocalNode n, String op) throws IOException {
        HttpResponse<String> r = n.post("/api/v1/kv", "[" + op + "]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Json.MAPPER.readTree(r.body()).path("results").get(0);
    }

    /** Every row of namespace r on {@code n}, in key order, after the linearizable barrier. */
    private static JsonNode rows(LocalNode n) throws IOException {
        return call(n, "{\"op\":\"getPrefix\",\"ns\":\"r\",\"prefix\":\"k\",\"limit\":1000}").path("rows");
    }
}
