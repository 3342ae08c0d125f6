package io.queenkv.node.http;

import static io.queenkv.node.http.Wire.badRequest;
import static io.queenkv.node.http.Wire.batch;
import static io.queenkv.node.http.Wire.get;
import static io.queenkv.node.http.Wire.json;
import static io.queenkv.node.http.Wire.ok;
import static io.queenkv.node.http.Wire.put;
import static io.queenkv.node.http.Wire.refused;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.testing.LocalNode;

/** The {@code Idempotency-Key} header of write calls. */
class IdempotencyKeyTest {
    @TempDir
    static Path dir;
    static LocalNode node;

    @BeforeAll
    static void start() throws IOException {
        node = LocalNode.start(dir, Map.of());
    }

    @AfterAll
    static void stop() throws IOException {
        if (node != null) node.close();
    }

    private static HttpResponse<String> withKey(String key, String body) {
        return batch(node, body, Map.of("Idempotency-Key", key));
    }

    private static final String INCR = "[{\"op\":\"incr\",\"ns\":\"idem\",\"key\":\"counter\",\"delta\":1,\"forever\":true}]";

    @Test
    void aRetriedIncrCountsOnce() {
        HttpResponse<String> first = withKey("incr-1", INCR);
        assertThat(first.statusCode()).isEqualTo(200);
        JsonNode answer = json(first);
        assertThat(answer.get("results").get(0).get("value").asInt()).isEqualTo(1);

        for (int i = 0; i < 3; i++) {
            HttpResponse<String> retry = withKey("incr-1", INCR);
            assertThat(retry.statusCode()).isEqualTo(200);
            assertThat(json(retry)).isEqualTo(answer);
        }
        JsonNode row = ok(node, get("idem", "counter")).get(0);
        assertThat(row.get("value").asInt()).isEqualTo(1);
        assertThat(row.get("version").asLong()).isEqualTo(answer.get("results").get(0).get("version").asLong());

        // a new key is a new call; no key is always a new call
        assertThat(json(withKey("incr-2", INCR)).get("results").get(0).get("value").asInt()).isEqualTo(2);
        assertThat(json(batch(node, INCR)).get("results").get(0).get("value").asInt()).isEqualTo(3);
        assertThat(json(batch(node, INCR)).get("results").get(0).get("value").asInt()).isEqualTo(4);
        // the first key still answers its own recorded answer
        assertThat(json(withKey("incr-1", INCR))).isEqualTo(answer);
        assertThat(ok(node, get("idem", "counter")).get(0).get("value").asInt()).isEqualTo(4);
    }

    @Test
    void theSameBodyInAnotherShapeIsTheSameCall() {
        String op = "{\"op\":\"incr\",\"ns\":\"idem\",\"key\":\"shape\",\"delta\":5,\"forever\":true}";
        JsonNode first = json(withKey("shape-1", "[" + op + "]"));
        HttpResponse<String> retry = withKey("shape-1", "{\"operations\":[" + op + "]}");
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
        assertThat(json(retry)).isEqualTo(first);
        assertThat(ok(node, get("idem", "shape")).get(0).get("value").asInt()).isEqualTo(5);
    }

    @Test
    void theSameKeyWithADifferentCallIsAConflictAndAppliesNothing() {
        assertThat(withKey("reuse-1", "[" + put("idem", "reuse-a", "1") + "]").statusCode()).isEqualTo(200);
        HttpResponse<String> other = withKey("reuse-1", "[" + put("idem", "reuse-b", "1") + "]");
        refused(other, 409, "kv_conflict", "kv_idempotency_key_reused");
        HttpResponse<String> otherValue = withKey("reuse-1", "[" + put("idem", "reuse-a", "2") + "]");
        refused(otherValue, 409, "kv_conflict", "kv_idempotency_key_reused");
        JsonNode r = ok(node, get("idem", "reuse-a"), get("idem", "reuse-b"));
        assertThat(r.get(0).get("value").asInt()).isEqualTo(1);
        assertThat(r.get(1).get("found").asBoolean()).isFalse();
    }

    @Test
    void aRefusedCallRecordsNothing() {
        String bad = "[" + put("idem", "refused", "1") + ",{\"op\":\"nope\",\"ns\":\"idem\",\"key\":\"x\"}]";
        badRequest(withKey("refused-1", bad), "kv_unknown_op");
        // the key is free: a different, valid call with it applies
        HttpResponse<String> good = withKey("refused-1", "[" + put("idem", "refused", "2") + "]");
        assertThat(good.statusCode()).as(good.body()).isEqualTo(200);
        assertThat(json(good).get("results").get(0).get("applied").asBoolean()).isTrue();
        assertThat(ok(node, get("idem", "refused")).get(0).get("value").asInt()).isEqualTo(2);
    }

    @Test
    void aRequiredAbortIsARecordedAnswer() {
        ok(node, put("idem", "guard", "\"taken\""));
        String call = "[{\"op\":\"putIfAbsent\",\"ns\":\"idem\",\"key\":\"guard\",\"value\":\"mine\",\"forever\":true,\"required\":true},"
                + put("idem", "guarded", "1") + "]";
        HttpResponse<String> first = withKey("abort-1", call);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(json(first).get("ok").asBoolean()).isFalse();
        // the obstacle goes away, but the retry still answers what happened
        ok(node, "{\"op\":\"delete\",\"ns\":\"idem\",\"key\":\"guard\"}");
        HttpResponse<String> retry = withKey("abort-1", call);
        assertThat(json(retry)).isEqualTo(json(first));
        assertThat(ok(node, get("idem", "guarded")).get(0).get("found").asBoolean()).isFalse();
    }

    @Test
    void singleKeyWritesHonourTheKeyToo() {
        Map<String, String> h = Map.of("Idempotency-Key", "single-1");
        HttpResponse<String> first = node.http("PUT", "/api/v1/kv/idem/single", "{\"value\":1,\"forever\":true}", h);
        assertThat(first.statusCode()).isEqualTo(200);
        HttpResponse<String> retry = node.http("PUT", "/api/v1/kv/idem/single", "{\"value\":1,\"forever\":true}", h);
        assertThat(json(retry)).isEqualTo(json(first));
        assertThat(ok(node, get("idem", "single")).get(0).get("version").asLong())
                .isEqualTo(json(first).get("version").asLong());
    }

    @Test
    void aReadCallWithAKeyIsJustARead() {
        HttpResponse<String> r = batch(node, "[" + get("idem", "anything") + "]", Map.of("Idempotency-Key", "read-1"));
        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void anUnusableKeyIsABadRequest() {
        badRequest(withKey("k".repeat(257), "[" + put("idem", "long-key", "1") + "]"), "kv_bad_request");
        assertThat(withKey("k".repeat(256), "[" + put("idem", "long-key", "1") + "]").statusCode()).isEqualTo(200);
    }
}
