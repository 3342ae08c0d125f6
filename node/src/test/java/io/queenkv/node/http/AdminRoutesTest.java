package io.queenkv.node.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.access.Access;
import io.queenkv.node.api.Json;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Outcome;
import io.queenkv.node.kv.Result;
import io.queenkv.node.kv.SnapshotCodec;
import io.queenkv.node.testing.LocalNode;

/** The admin routes on a one-node cluster, and the leader's sweep through the log. */
class AdminRoutesTest {
    @TempDir
    static Path dir;
    static LocalNode node;

    @BeforeAll
    static void start() throws Exception {
        node = LocalNode.start(dir.resolve("data"));
    }

    @AfterAll
    static void stop() throws Exception {
        node.close();
    }

    static JsonNode json(String body) throws Exception {
        return Json.MAPPER.readTree(body);
    }

    @Test
    void aBackupHoldsEveryAcknowledgedKeyWithItsVersionAtOneIndex() throws Exception {
        Map<String, Long> versions = new HashMap<>();
        for (int i = 0; i < 50; i++) {
            String body = node.post("/api/v1/kv", "[{\"op\":\"put\",\"ns\":\"bak\",\"key\":\"k" + i + "\",\"value\":" + i
                    + ",\"forever\":true}]").body();
            versions.put("k" + i, json(body).at("/results/0/version").asLong());
        }
        long applied = node.node.replicated().division().getInfo().getLastAppliedIndex();
        HttpResponse<byte[]> backup = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(node.baseUrl + "/api/v1/admin/backup")).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(backup.statusCode()).isEqualTo(200);
        assertThat(backup.headers().firstValue("content-type")).hasValue("application/octet-stream");
        assertThat(Long.parseLong(backup.headers().firstValue(AdminRoutes.LOG_INDEX_HEADER).orElseThrow())).isGreaterThanOrEqualTo(applied);

        KvEngine restored = SnapshotCodec.read(new ByteArrayInputStream(backup.body()),
                node.node.replicated().local(KvEngine::settings));
        assertThat(restored.keyCount()).isEqualTo(Long.parseLong(backup.headers().firstValue(AdminRoutes.KEYS_HEADER).orElseThrow()));
        for (var e : versions.entrySet()) {
            Outcome.Completed outcome = restored.read(Access.DEFAULT_TENANT, List.of(new Op.Get("bak", e.getKey(), false)), Long.MAX_VALUE / 2);
            Result.ReadRow row = ((Result.GetResult) outcome.results().get(0)).row();
            assertThat(row).as(e.getKey()).isNotNull();
            assertThat(row.version()).as(e.getKey()).isEqualTo(e.getValue());
        }
        // A damaged backup is refused, not loaded.
        byte[] damaged = backup.body().clone();
        damaged[damaged.length / 2] ^= 1;
        assertThatThrownBy(() -> SnapshotCodec.read(new ByteArrayInputStream(damaged), restored.settings())).isInstanceOf(IOException.class);
    }

    @Test
    void settingsChangeThroughTheLogAndApplyAtOnce() throws Exception {
        String value = "[{\"op\":\"put\",\"ns\":\"adm\",\"key\":\"v\",\"value\":\"0123456789\",\"forever\":true}]";
        assertThat(node.post("/api/v1/kv", value).statusCode()).isEqualTo(200);
        long before = json(node.get("/api/v1/cluster").body()).get("settingsIndex").asLong();

        var changed = node.http("PUT", "/api/v1/admin/settings", "{\"maxValueBytes\":8}", Map.of());
        assertThat(changed.statusCode()).isEqualTo(200);
        JsonNode answer = json(changed.body());
        assertThat(answer.at("/settings/maxValueBytes").asInt()).isEqualTo(8);
        assertThat(answer.at("/settings/maxOpsPerCall").asInt()).isEqualTo(256);
        assertThat(answer.get("settingsIndex").asLong()).isGreaterThan(before);

        var refused = node.post("/api/v1/kv", value);
        assertThat(refused.statusCode()).isEqualTo(413);
        assertThat(json(refused.body()).get("reason").asText()).isEqualTo("kv_value_too_large");
        JsonNode cluster = json(node.get("/api/v1/cluster").body());
        assertThat(cluster.at("/settings/maxValueBytes").asInt()).isEqualTo(8);
        assertThat(cluster.get("settingsIndex").asLong()).isEqualTo(answer.get("settingsIndex").asLong());

        assertThat(node.http("PUT", "/api/v1/admin/settings", "{\"maxValueBytes\":65536}", Map.of()).statusCode()).isEqualTo(200);
        assertThat(node.post("/api/v1/kv", value).statusCode()).isEqualTo(200);
    }

    @Test
    void badSettingsAreRefusedAndChangeNothing() throws Exception {
        JsonNode before = json(node.get("/api/v1/cluster").body());
        for (String body : new String[] {"{\"maxKeysPerCall\":5000}", "{\"maxValueBytes\":\"big\"}", "{\"colour\":1}", "[1]"}) {
            var r = node.http("PUT", "/api/v1/admin/settings", body, Map.of());
            assertThat(r.statusCode()).as(body).isEqualTo(400);
            assertThat(json(r.body()).get("error").asText()).isEqualTo("kv_bad_request");
        }
        JsonNode after = json(node.get("/api/v1/cluster").body());
        assertThat(after.get("settings")).isEqualTo(before.get("settings"));
        assertThat(after.get("settingsIndex")).isEqualTo(before.get("settingsIndex"));
    }

    @Test
    void aSnapshotCanBeTakenOnDemand() throws Exception {
        node.post("/api/v1/kv", "[{\"op\":\"put\",\"ns\":\"adm\",\"key\":\"s\",\"value\":1,\"forever\":true}]");
        var r = node.post("/api/v1/admin/snapshot", "");
        assertThat(r.statusCode()).isEqualTo(200);
        long applied = json(node.get("/api/v1/cluster").body()).get("appliedIndex").asLong();
        assertThat(json(r.body()).get("snapshotIndex").asLong()).isPositive().isLessThanOrEqualTo(applied);
    }

    @Test
    void theLastMemberCannotBeRemovedAndUnknownMembersAre404() throws Exception {
        var last = node.http("DELETE", "/api/v1/admin/members/n1", null, Map.of());
        assertThat(last.statusCode()).isEqualTo(400);
        var unknown = node.http("DELETE", "/api/v1/admin/members/n9", null, Map.of());
        assertThat(unknown.statusCode()).isEqualTo(404);
        var alone = node.post("/api/v1/admin/leadership", "");
        assertThat(alone.statusCode()).isEqualTo(400);
    }

    @Test
    void expiredRowsAreSweptThroughTheLog() throws Exception {
        long keysBefore = node.node.replicated().local(KvEngine::keyCount);
        StringBuilder ops = new StringBuilder("[");
        for (int i = 0; i < 50; i++)
            ops.append(i == 0 ? "" : ",").append("{\"op\":\"put\",\"ns\":\"sweep\",\"key\":\"k").append(i).append("\",\"value\":").append(i).append(",\"ttlSeconds\":1}");
        assertThat(node.post("/api/v1/kv", ops + "]").statusCode()).isEqualTo(200);
        assertThat(node.node.replicated().local(KvEngine::keyCount)).isGreaterThanOrEqualTo(keysBefore + 50);
        Awaitility.await().atMost(Duration.ofSeconds(15))
                .until(() -> node.node.replicated().local(KvEngine::keyCount) <= keysBefore);
        JsonNode page = json(node.post("/api/v1/kv", "[{\"op\":\"getPrefix\",\"ns\":\"sweep\",\"prefix\":\"k\"}]").body());
        assertThat(page.at("/results/0/rows")).isEmpty();
        assertThat(node.node.replicated().local(KvEngine::keyCount)).isLessThanOrEqualTo(keysBefore);
    }
}
