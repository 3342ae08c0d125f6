package io.queenkv.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.queenkv.node.testing.LocalNode;

/** Small helpers shared by the HTTP tests: sending calls, reading JSON, asserting the error contract. */
final class Wire {
    /** Exact numbers, so {@code 0.3} stays {@code 0.3}. */
    static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    static final String KV = "/api/v1/kv";

    private Wire() {}

    static JsonNode json(HttpResponse<String> response) {
        try {
            return JSON.readTree(response.body());
        } catch (JsonProcessingException e) {
            throw new AssertionError("not JSON (" + response.statusCode() + "): " + response.body(), e);
        }
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    /** POSTs a batch body and returns the raw response. */
    static HttpResponse<String> batch(LocalNode node, String body) {
        return node.http("POST", KV, body, Map.of());
    }

    static HttpResponse<String> batch(LocalNode node, String body, Map<String, String> headers) {
        return node.http("POST", KV, body, headers);
    }

    /** POSTs {@code {"operations":[ops…]}}, asserts 200 with a results envelope, returns the results array. */
    static JsonNode ok(LocalNode node, String... ops) {
        HttpResponse<String> r = batch(node, "{\"operations\":[" + String.join(",", ops) + "]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode body = json(r);
        assertThat(fieldNames(body)).as(r.body()).containsExactly("results");
        assertThat(body.get("results").size()).as(r.body()).isEqualTo(ops.length);
        return body.get("results");
    }

    /** Asserts the error body of a refused call: status, {@code error}, {@code reason}, a non-empty {@code detail}. */
    static JsonNode refused(HttpResponse<String> r, int status, String error, String reason) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("content-type")).get().asString().startsWith("application/json");
        JsonNode body = json(r);
        assertThat(fieldNames(body)).as(r.body()).containsExactlyInAnyOrder("error", "reason", "detail");
        assertThat(body.get("error").asText()).as(r.body()).isEqualTo(error);
        assertThat(body.get("reason").asText()).as(r.body()).isEqualTo(reason);
        assertThat(body.get("detail").isTextual()).isTrue();
        assertThat(body.get("detail").asText()).isNotBlank();
        return body;
    }

    /** A 400 with {@code error: kv_bad_request}. */
    static JsonNode badRequest(HttpResponse<String> r, String reason) {
        return refused(r, 400, "kv_bad_request", reason);
    }

    /** A 400 whose detail names the op at {@code index}. */
    static JsonNode badRequestAt(HttpResponse<String> r, String reason, int index) {
        JsonNode body = badRequest(r, reason);
        assertThat(body.get("detail").asText()).startsWith("op at index " + index + ": ");
        return body;
    }

    static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) names.add(it.next());
        return names;
    }

    /** Escapes a string as a JSON string literal. */
    static String str(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String put(String ns, String key, String valueJson) {
        return "{\"op\":\"put\",\"ns\":" + str(ns) + ",\"key\":" + str(key) + ",\"value\":" + valueJson + ",\"forever\":true}";
    }

    static String get(String ns, String key) {
        return "{\"op\":\"get\",\"ns\":" + str(ns) + ",\"key\":" + str(key) + "}";
    }
}
