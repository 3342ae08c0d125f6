package io.queenkv.node.http;

import static io.queenkv.node.http.Wire.badRequest;
import static io.queenkv.node.http.Wire.fieldNames;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.testing.LocalNode;

/** {@code GET | PUT | DELETE /api/v1/kv/:ns/*key}: bare elements, ETag, path decoding, body rules. */
class SingleKeyRouteTest {
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

    private static HttpResponse<String> send(String method, String path, String body) {
        return node.http(method, path, body, Map.of());
    }

    @Test
    void putThenGetAnswersBareElementsWithAnETag() {
        HttpResponse<String> p = send("PUT", "/api/v1/kv/single/k1", "{\"value\":{\"n\":1},\"forever\":true}");
        assertThat(p.statusCode()).as(p.body()).isEqualTo(200);
        JsonNode put = json(p);
        assertThat(fieldNames(put)).containsExactly("index", "op", "applied", "key", "value", "version");
        assertThat(put.get("index").asInt()).isZero();
        assertThat(put.get("op").asText()).isEqualTo("put");
        assertThat(put.get("key").asText()).isEqualTo("k1");
        assertThat(put.get("value")).isEqualTo(json("{\"n\":1}"));
        long version = put.get("version").asLong();

        HttpResponse<String> g = node.get("/api/v1/kv/single/k1");
        assertThat(g.statusCode()).isEqualTo(200);
        assertThat(g.headers().firstValue("content-type")).get().asString().startsWith("application/json");
        JsonNode got = json(g);
        assertThat(fieldNames(got)).containsExactly("index", "op", "found", "key", "value", "version", "expiresAt", "updatedAt");
        assertThat(got.get("op").asText()).isEqualTo("get");
        assertThat(got.get("found").asBoolean()).isTrue();
        assertThat(got.get("version").asLong()).isEqualTo(version);
        assertThat(g.headers().firstValue("ETag")).hasValue("\"" + version + "\"");

        // the batch route sees the same row
        assertThat(ok(node, get("single", "k1")).get(0).get("version").asLong()).isEqualTo(version);
    }

    @Test
    void headAnswersAsGetWouldWithoutABodyAndChangesNothing() {
        HttpResponse<String> p = send("PUT", "/api/v1/kv/single/h1", "{\"value\":7,\"forever\":true}");
        long version = json(p).get("version").asLong();
        HttpResponse<String> get = node.get("/api/v1/kv/single/h1");
        HttpResponse<String> head = send("HEAD", "/api/v1/kv/single/h1", null);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValue("ETag")).hasValue("\"" + version + "\"");
        assertThat(head.headers().firstValue("content-type")).isEqualTo(get.headers().firstValue("content-type"));
        // A GET that would be refused is refused to HEAD too.
        assertThat(send("HEAD", "/api/v1/kv/Not%20A%20Namespace/h1", null).statusCode()).isEqualTo(400);
        assertThat(send("HEAD", "/version", null).statusCode()).isEqualTo(200);
        assertThat(json(node.get("/api/v1/kv/single/h1")).get("version").asLong()).isEqualTo(version);
    }

    @Test
    void getOfAnAbsentKeyIs200FoundFalseWithoutETag() {
        HttpResponse<String> g = node.get("/api/v1/kv/single/absent");
        assertThat(g.statusCode()).isEqualTo(200);
        assertThat(fieldNames(json(g))).containsExactly("index", "op", "found", "key");
        assertThat(json(g).get("found").asBoolean()).isFalse();
        assertThat(g.headers().firstValue("ETag")).isEmpty();
    }

    @Test
    void theKeyIsTheRestOfThePathDecodedOnce() {
        ok(node, put("paths", "a/b/c", "1"), put("paths", "x/y", "2"), put("paths", "%2F", "3"),
                put("paths", "sp ace+plus", "4"), put("paths", "é€", "5"));
        assertThat(json(node.get("/api/v1/kv/paths/a/b/c")).get("value").asInt()).isEqualTo(1);
        assertThat(json(node.get("/api/v1/kv/paths/a/b/c")).get("key").asText()).isEqualTo("a/b/c");
        assertThat(json(node.get("/api/v1/kv/paths/x%2Fy")).get("value").asInt()).isEqualTo(2);
        assertThat(json(node.get("/api/v1/kv/paths/x%2Fy")).get("key").asText()).isEqualTo("x/y");
        // %252F is decoded once: the key is the three characters "%2F"
        assertThat(json(node.get("/api/v1/kv/paths/%252F")).get("value").asInt()).isEqualTo(3);
        assertThat(json(node.get("/api/v1/kv/paths/sp%20ace+plus")).get("value").asInt()).isEqualTo(4);
        assertThat(json(node.get("/api/v1/kv/paths/%C3%A9%E2%82%AC")).get("value").asInt()).isEqualTo(5);

        // PUT and DELETE decode the same way
        JsonNode put = json(send("PUT", "/api/v1/kv/paths/p%2Fq/r", "{\"value\":6,\"forever\":true}"));
        assertThat(put.get("key").asText()).isEqualTo("p/q/r");
        assertThat(ok(node, get("paths", "p/q/r")).get(0).get("value").asInt()).isEqualTo(6);
        JsonNode del = json(send("DELETE", "/api/v1/kv/paths/p/q%2Fr", null));
        assertThat(del.get("applied").asBoolean()).isTrue();
        assertThat(del.get("key").asText()).isEqualTo("p/q/r");
    }

    @Test
    void theNamespaceComesFromThePath() {
        badRequest(node.get("/api/v1/kv/Bad_NS/k"), "kv_bad_namespace");
        HttpResponse<String> tooLong = node.get("/api/v1/kv/paths/" + "k".repeat(513));
        refused(tooLong, 413, "payload_too_large", "kv_key_too_large");
        // Jetty refuses %00 before routing; the answer is still the contract's JSON
        badRequest(node.get("/api/v1/kv/paths/a%00b"), "kv_bad_key");
        // an escape that is not UTF-8 is refused, never replaced by U+FFFD
        badRequest(node.get("/api/v1/kv/paths/a%C3"), "kv_bad_key");
        badRequest(send("PUT", "/api/v1/kv/paths/%E2%82", "{\"value\":1,\"forever\":true}"), "kv_bad_key");
        // an empty key or namespace is a bad request, not a 404
        badRequest(node.get("/api/v1/kv/paths/"), "kv_bad_key");
        badRequest(node.get("/api/v1/kv/paths"), "kv_bad_key");
        badRequest(send("DELETE", "/api/v1/kv/paths/", null), "kv_bad_key");
        badRequest(node.get("/api/v1/kv//k"), "kv_bad_namespace");
        // '+' is a plus, not a space
        ok(node, put("paths", "a+b", "7"));
        assertThat(json(node.get("/api/v1/kv/paths/a+b")).get("value").asInt()).isEqualTo(7);
        assertThat(json(node.get("/api/v1/kv/paths/a%2Bb")).get("value").asInt()).isEqualTo(7);
    }

    @Test
    void putFollowsThePutRules() {
        // lost write: bare element with reason
        send("PUT", "/api/v1/kv/single/cas", "{\"value\":1,\"forever\":true}");
        JsonNode lost = json(send("PUT", "/api/v1/kv/single/cas", "{\"value\":2,\"ttlSeconds\":60,\"expect\":0}"));
        assertThat(fieldNames(lost)).containsExactly("index", "op", "applied", "reason", "key", "value", "version");
        assertThat(lost.get("reason").asText()).isEqualTo("exists");
        // required abort: the ok:false body
        HttpResponse<String> abort = send("PUT", "/api/v1/kv/single/cas", "{\"value\":2,\"forever\":true,\"expect\":0,\"required\":true}");
        assertThat(abort.statusCode()).isEqualTo(200);
        JsonNode a = json(abort);
        assertThat(a.get("ok").asBoolean()).isFalse();
        assertThat(a.get("reason").asText()).isEqualTo("kv_precondition");
        assertThat(a.get("failedIndex").asInt()).isZero();
        assertThat(a.get("kvReason").asText()).isEqualTo("exists");

        badRequest(send("PUT", "/api/v1/kv/single/e", "{\"value\":1}"), "kv_expiry_not_specified");
        badRequest(send("PUT", "/api/v1/kv/single/e", "{\"value\":1,\"ttlSeconds\":0}"), "kv_bad_ttl");
        badRequest(send("PUT", "/api/v1/kv/single/e", "{\"value\":1,\"forever\":true,\"expect\":-1}"), "kv_bad_expect");
        badRequest(send("PUT", "/api/v1/kv/single/e", "{\"forever\":true}"), "kv_bad_request");
        badRequest(send("PUT", "/api/v1/kv/single/e", "{\"value\":1,\"forever\":true,\"tenant\":\"x\"}"), "kv_tenant_not_an_input");
        refused(send("PUT", "/api/v1/kv/single/e", "{\"value\":\"" + "a".repeat(65_535) + "\",\"forever\":true}"),
                413, "payload_too_large", "kv_value_too_large");
        assertThat(json(node.get("/api/v1/kv/single/e")).get("found").asBoolean()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "[]", "[{\"value\":1,\"forever\":true}]", "null", "5", "\"value\"", "not json", "{\"value\":1,\"forever\":true} x"})
    void aPutBodyThatIsNotAJsonObjectIsKvBadBody(String body) {
        badRequest(send("PUT", "/api/v1/kv/single/badbody", body), "kv_bad_body");
    }

    @ParameterizedTest
    @ValueSource(strings = {"op", "ns", "namespace", "key"})
    void aBodyFieldNamedByThePathIsRefused(String field) {
        badRequest(send("PUT", "/api/v1/kv/single/fip", "{\"value\":1,\"forever\":true,\"" + field + "\":\"x\"}"), "kv_field_in_path");
        badRequest(send("DELETE", "/api/v1/kv/single/fip", "{\"" + field + "\":\"x\"}"), "kv_field_in_path");
        assertThat(json(node.get("/api/v1/kv/single/fip")).get("found").asBoolean()).isFalse();
    }

    @Test
    void anyQueryStringIsRefused() {
        send("PUT", "/api/v1/kv/single/qs", "{\"value\":1,\"forever\":true}");
        badRequest(node.get("/api/v1/kv/single/qs?x=1"), "kv_no_query_string");
        badRequest(node.get("/api/v1/kv/single/qs?flag"), "kv_no_query_string");
        badRequest(send("PUT", "/api/v1/kv/single/qs?ttlSeconds=5", "{\"value\":2,\"forever\":true}"), "kv_no_query_string");
        badRequest(send("DELETE", "/api/v1/kv/single/qs?force=true", null), "kv_no_query_string");
        // nothing changed
        assertThat(json(node.get("/api/v1/kv/single/qs")).get("value").asInt()).isEqualTo(1);
    }

    @Test
    void deleteWithAndWithoutBody() {
        long v = json(send("PUT", "/api/v1/kv/single/d1", "{\"value\":\"x\",\"forever\":true}")).get("version").asLong();
        HttpResponse<String> d = send("DELETE", "/api/v1/kv/single/d1", null);
        assertThat(d.statusCode()).isEqualTo(200);
        JsonNode del = json(d);
        assertThat(fieldNames(del)).containsExactly("index", "op", "applied", "key", "value", "version");
        assertThat(del.get("op").asText()).isEqualTo("delete");
        assertThat(del.get("value").asText()).isEqualTo("x");
        assertThat(del.get("version").asLong()).isEqualTo(v);

        JsonNode again = json(send("DELETE", "/api/v1/kv/single/d1", null));
        assertThat(again.get("applied").asBoolean()).isFalse();
        assertThat(again.get("reason").asText()).isEqualTo("absent");
        assertThat(again.get("value").isNull()).isTrue();
        assertThat(again.get("version").asLong()).isZero();

        // with a body: expect and required
        long v2 = json(send("PUT", "/api/v1/kv/single/d2", "{\"value\":\"y\",\"forever\":true}")).get("version").asLong();
        JsonNode wrong = json(send("DELETE", "/api/v1/kv/single/d2", "{\"expect\":" + (v2 + 50) + "}"));
        assertThat(wrong.get("applied").asBoolean()).isFalse();
        assertThat(wrong.get("reason").asText()).isEqualTo("version");
        JsonNode abort = json(send("DELETE", "/api/v1/kv/single/d2", "{\"expect\":" + (v2 + 50) + ",\"required\":true}"));
        assertThat(abort.get("ok").asBoolean()).isFalse();
        assertThat(abort.get("kvReason").asText()).isEqualTo("version");
        JsonNode right = json(send("DELETE", "/api/v1/kv/single/d2", "{\"expect\":" + v2 + ",\"required\":true}"));
        assertThat(right.get("applied").asBoolean()).isTrue();
        JsonNode empty = json(send("DELETE", "/api/v1/kv/single/d2", "{}"));
        assertThat(empty.get("reason").asText()).isEqualTo("absent");
        JsonNode expectZero = json(send("DELETE", "/api/v1/kv/single/d2", "{\"expect\":0}"));
        assertThat(expectZero.get("applied").asBoolean()).isTrue();
        assertThat(expectZero.get("version").asLong()).isZero();

        badRequest(send("DELETE", "/api/v1/kv/single/d2", "[]"), "kv_bad_body");
        badRequest(send("DELETE", "/api/v1/kv/single/d2", "{\"expect\":\"1\"}"), "kv_bad_expect");
        badRequest(send("DELETE", "/api/v1/kv/single/d2", "{\"required\":\"yes\"}"), "kv_bad_request");
    }
}
