package io.queenkv.node.http;

import static io.queenkv.node.http.Wire.badRequest;
import static io.queenkv.node.http.Wire.badRequestAt;
import static io.queenkv.node.http.Wire.batch;
import static io.queenkv.node.http.Wire.get;
import static io.queenkv.node.http.Wire.json;
import static io.queenkv.node.http.Wire.ok;
import static io.queenkv.node.http.Wire.put;
import static io.queenkv.node.http.Wire.refused;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.testing.LocalNode;

/** The QUEEN_KV_MAX_* limits, set small, at their edges; and the settings as the cluster reports them. */
class SmallLimitsTest {
    static final int MAX_BODY = 2048;

    @TempDir
    static Path dir;
    static LocalNode node;

    @BeforeAll
    static void start() throws IOException {
        node = LocalNode.start(dir, Map.of("QUEEN_KV_MAX_OPS_PER_CALL", "3", "QUEEN_KV_MAX_KEYS_PER_CALL", "5",
                "QUEEN_KV_MAX_VALUE_BYTES", "10", "QUEEN_KV_MAX_BODY_BYTES", Integer.toString(MAX_BODY),
                "QUEEN_KV_WRITE_RATE", "1000", "QUEEN_KV_READ_RATE", "2000"));
    }

    @AfterAll
    static void stop() throws IOException {
        if (node != null) node.close();
    }

    @Test
    void theClusterReportsTheSettingsFromTheEnvironment() {
        JsonNode s = json(node.get("/api/v1/cluster")).get("settings");
        assertThat(s.get("maxOpsPerCall").asInt()).isEqualTo(3);
        assertThat(s.get("maxKeysPerCall").asInt()).isEqualTo(5);
        assertThat(s.get("maxValueBytes").asInt()).isEqualTo(10);
        assertThat(s.get("maxBodyBytes").asLong()).isEqualTo(MAX_BODY);
        assertThat(s.get("writeRate").asInt()).isEqualTo(1000);
        assertThat(s.get("readRate").asInt()).isEqualTo(2000);
    }

    @Test
    void opsPerCall() {
        ok(node, get("lim", "a"), get("lim", "b"), get("lim", "c"));
        badRequest(batch(node, "[" + put("lim", "ops", "1") + "," + get("lim", "b") + "," + get("lim", "c") + "," + get("lim", "d") + "]"),
                "kv_too_many_ops");
        assertThat(ok(node, get("lim", "ops")).get(0).get("found").asBoolean()).isFalse();
    }

    @Test
    void keysPerCall() {
        ok(node, "{\"op\":\"getMany\",\"ns\":\"lim\",\"keys\":[\"1\",\"2\",\"3\",\"4\",\"5\"]}");
        badRequestAt(batch(node, "[{\"op\":\"getMany\",\"ns\":\"lim\",\"keys\":[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\"]}]"), "kv_too_many_keys", 0);
        ok(node, "{\"op\":\"getPrefix\",\"ns\":\"lim\",\"prefix\":\"p\",\"limit\":4}", get("lim", "x"));
        badRequestAt(batch(node, "[{\"op\":\"getPrefix\",\"ns\":\"lim\",\"prefix\":\"p\",\"limit\":5}," + get("lim", "x") + "]"),
                "kv_too_many_keys", 1);
        // without a limit getPrefix counts its default of 100
        badRequestAt(batch(node, "[{\"op\":\"getPrefix\",\"ns\":\"lim\",\"prefix\":\"p\"}]"), "kv_too_many_keys", 0);
        // writes count one key each
        ok(node, put("lim", "k1", "1"), put("lim", "k2", "1"), "{\"op\":\"getMany\",\"ns\":\"lim\",\"keys\":[\"k1\",\"k2\",\"k3\"]}");
        badRequestAt(batch(node, "[" + put("lim", "k1", "1") + "," + put("lim", "k2", "1") + ","
                + "{\"op\":\"getMany\",\"ns\":\"lim\",\"keys\":[\"k1\",\"k2\",\"k3\",\"k4\"]}]"), "kv_too_many_keys", 2);
    }

    @Test
    void valueBytes() {
        assertThat(ok(node, put("lim", "v", "\"12345678\"")).get(0).get("applied").asBoolean()).isTrue();
        refused(batch(node, "[" + put("lim", "v", "\"123456789\"") + "]"), 413, "payload_too_large", "kv_value_too_large");
        // multi-byte characters count in UTF-8 bytes: "éééé" is 2 + 8 bytes
        assertThat(ok(node, put("lim", "v", "\"éééé\"")).get(0).get("applied").asBoolean()).isTrue();
        refused(batch(node, "[" + put("lim", "v", "\"ééééa\"") + "]"), 413, "payload_too_large", "kv_value_too_large");
        // an escaped character counts as what compact JSON writes for it
        assertThat(ok(node, put("lim", "v", "\"\\u0041BCDEFGH\"")).get(0).get("value").asText()).isEqualTo("ABCDEFGH");
        refused(node.http("PUT", "/api/v1/kv/lim/v", "{\"value\":[1,2,3,4,5],\"forever\":true}", Map.of()),
                413, "payload_too_large", "kv_value_too_large");
        assertThat(json(node.get("/api/v1/kv/lim/v")).get("value").asText()).isEqualTo("ABCDEFGH");
    }

    @Test
    void aBodyOverTheLimitIs413() {
        String fits = padded("[" + put("lim", "body", "1") + "]", MAX_BODY);
        assertThat(fits.getBytes(StandardCharsets.UTF_8)).hasSize(MAX_BODY);
        assertThat(batch(node, fits).statusCode()).isEqualTo(200);

        String over = padded("[" + put("lim", "body", "2") + "]", MAX_BODY + 1);
        refused(batch(node, over), 413, "payload_too_large", "payload_too_large");
        refused(node.http("PUT", "/api/v1/kv/lim/body", padded("{\"value\":3,\"forever\":true}", MAX_BODY + 1), Map.of()),
                413, "payload_too_large", "payload_too_large");
        refused(node.http("DELETE", "/api/v1/kv/lim/body", padded("{}", MAX_BODY + 1), Map.of()),
                413, "payload_too_large", "payload_too_large");
        assertThat(ok(node, get("lim", "body")).get(0).get("value").asInt()).isEqualTo(1);
    }

    @Test
    void aChunkedBodyOverTheLimitIs413Too() throws Exception {
        byte[] over = padded("[" + put("lim", "chunked", "1") + "]", MAX_BODY * 4).getBytes(StandardCharsets.UTF_8);
        HttpRequest req = HttpRequest.newBuilder(URI.create(node.baseUrl + Wire.KV))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(over))) // no Content-Length: chunked
                .build();
        HttpResponse<String> r = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
        refused(r, 413, "payload_too_large", "payload_too_large");
        assertThat(ok(node, get("lim", "chunked")).get(0).get("found").asBoolean()).isFalse();
    }

    /** Pads a JSON document with trailing spaces to exactly {@code size} bytes. */
    private static String padded(String json, int size) {
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        return json + " ".repeat(size - bytes);
    }
}
