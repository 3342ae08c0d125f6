package io.queenkv.node.http;

import static io.queenkv.node.http.Wire.batch;
import static io.queenkv.node.http.Wire.get;
import static io.queenkv.node.http.Wire.json;
import static io.queenkv.node.http.Wire.ok;
import static io.queenkv.node.http.Wire.put;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.testing.LocalNode;

/**
 * Input meant to break the node rather than use it: numbers no field can hold, bytes that are not
 * UTF-8, lone surrogates, requests Jetty refuses before routing, bad member addresses, made-up
 * methods. Every answer is a documented status with the JSON error body, no detail names a class,
 * nothing is half-applied or silently changed.
 */
class HostileInputTest {
    static final String NS = "hostile";
    static final String HUGE = "1e2147483648";
    /** A class, a package or a stack frame in a detail: what callers must never see. */
    static final Pattern NAMES_CODE = Pattern.compile("\\b(java|javax|jdk|sun|com|org|io)\\.[a-z]+|[A-Z]\\w*(Exception|Error)\\b|\\bat [\\w.$]+\\(");
    static final AtomicInteger SEQ = new AtomicInteger();

    @TempDir
    static Path dir;
    static LocalNode node;

    @BeforeAll
    static void start() throws IOException {
        node = LocalNode.start(dir, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"));
    }

    @AfterAll
    static void stop() throws IOException {
        if (node != null) node.close();
    }

    // ---- numbers a field cannot hold

    static Stream<Arguments> hugeNumbersInACall() {
        return Stream.of(
                arguments("kv_bad_request", "{\"op\":\"get\",\"ns\":\"a\",\"key\":" + HUGE + "}"),
                arguments("kv_bad_request", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":" + HUGE + ",\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":{\"deep\":[" + HUGE + "]},\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":{\"ttlSeconds\":" + HUGE + "},\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":" + HUGE + ",\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1,\"max\":1e-2147483649,\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"getPrefix\",\"ns\":\"a\",\"prefix\":\"p\",\"limit\":" + HUGE + "}"),
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":" + HUGE + "}"),
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":1e999999999}"),
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":-1e999999999}"),
                arguments("kv_bad_expect", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"expect\":" + HUGE + "}"),
                arguments("kv_bad_expect", "{\"op\":\"check\",\"ns\":\"a\",\"key\":\"k\",\"expect\":1e999999999}"),
                arguments("kv_bad_expect", "{\"op\":\"check\",\"ns\":\"a\",\"key\":\"k\",\"expect\":9223372036854775808}"));
    }

    @ParameterizedTest(name = "[{index}] {0}: {1}")
    @MethodSource("hugeNumbersInACall")
    void aNumberNoFieldCanHoldIsRefusedWithTheFieldsReasonAndWritesNothing(String reason, String op) {
        String witness = "witness-" + SEQ.incrementAndGet();
        for (String body : new String[] {"[" + put(NS, witness, "1") + "," + op + "]", "{\"operations\":[" + put(NS, witness, "1") + "," + op + "]}"}) {
            JsonNode error = refused(batch(node, body), 400, "kv_bad_request", reason);
            if (!reason.equals("kv_bad_request") || op.contains("\"key\":" + HUGE))
                assertThat(error.get("detail").asText()).startsWith("op at index 1: ");
        }
        assertAbsent(witness);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {HUGE, "[" + HUGE + "]", "{\"operations\":[],\"x\":" + HUGE + "}", "{\"operations\":" + HUGE + "}"})
    void aHugeNumberInTheEnvelopeIsABadRequest(String body) {
        refused(batch(node, body), 400, "kv_bad_request", "kv_bad_request");
    }

    @Test
    void aHugeNumberOnASingleKeyRouteIsRefusedWithTheFieldsReason() {
        String path = Wire.KV + "/" + NS + "/single";
        refused(node.http("PUT", path, "{\"value\":" + HUGE + ",\"forever\":true}", Map.of()), 400, "kv_bad_request", "kv_bad_request");
        refused(node.http("PUT", path, "{\"value\":1,\"ttlSeconds\":" + HUGE + "}", Map.of()), 400, "kv_bad_request", "kv_bad_ttl");
        refused(node.http("DELETE", path, "{\"expect\":" + HUGE + "}", Map.of()), 400, "kv_bad_request", "kv_bad_expect");
        assertThat(json(node.get(path)).get("found").asBoolean()).isFalse();
    }

    @Test
    void aHugeOrOverflowingNumberInAnAdminBodyIsABadRequestAndChangesNothing() {
        JsonNode before = json(node.get("/api/v1/cluster")).get("settings");
        for (String body : new String[] {"{\"maxOpsPerCall\":" + HUGE + "}", "{\"maxOpsPerCall\":4294967297}", "{\"readRate\":1e20}",
                "{\"maxBodyBytes\":-1e2147483648}"})
            refused(node.http("PUT", "/api/v1/admin/settings", body, Map.of()), 400, "kv_bad_request", "kv_bad_request");
        refused(node.post("/api/v1/admin/leadership", "{\"to\":" + HUGE + "}"), 400, "kv_bad_request", "kv_bad_request");
        assertThat(json(node.get("/api/v1/cluster")).get("settings")).isEqualTo(before);
    }

    // ---- text that is not Unicode, never altered

    static Stream<Arguments> invalidUtf8() {
        return Stream.of(
                arguments("overlong '/' in a key", bytes("k", 0xc0, 0xaf)),
                arguments("overlong NUL in a key", bytes("k", 0xc0, 0x80)),
                arguments("three-byte overlong in a key", bytes("k", 0xe0, 0x80, 0xaf)),
                arguments("an encoded surrogate in a key", bytes("k", 0xed, 0xa0, 0x80)),
                arguments("past U+10FFFF in a key", bytes("k", 0xf4, 0x90, 0x80, 0x80)),
                arguments("a lone continuation byte", bytes("k", 0x80)),
                arguments("a truncated sequence", bytes("k", 0xe2, 0x82)));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("invalidUtf8")
    void invalidUtf8AnywhereInTheBodyIsKvBadBodyAndNothingIsStored(String what, byte[] keyBytes) {
        String witness = "witness-" + SEQ.incrementAndGet();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(("[" + put(NS, witness, "1") + ",{\"op\":\"put\",\"ns\":\"" + NS + "\",\"key\":\"").getBytes(StandardCharsets.UTF_8));
        body.writeBytes(keyBytes);
        body.writeBytes("\",\"value\":1,\"forever\":true}]".getBytes(StandardCharsets.UTF_8));
        assertRefusedRaw(RawHttp.send(node.baseUrl, "POST", Wire.KV, Map.of(), body.toByteArray()), 400, "kv_bad_body");

        ByteArrayOutputStream value = new ByteArrayOutputStream();
        value.writeBytes(("{\"value\":\"").getBytes(StandardCharsets.UTF_8));
        value.writeBytes(keyBytes);
        value.writeBytes("x\",\"forever\":true}".getBytes(StandardCharsets.UTF_8));
        assertRefusedRaw(RawHttp.send(node.baseUrl, "PUT", Wire.KV + "/" + NS + "/" + witness, Map.of(), value.toByteArray()), 400, "kv_bad_body");

        assertAbsent(witness);
        assertAbsent("k/");
        assertAbsent("k");
    }

    @Test
    void aLoneSurrogateEscapeInAValueIsKvBadBodyAndInAKeyKvBadKey() {
        String witness = "witness-" + SEQ.incrementAndGet();
        for (String value : new String[] {"\"\\ud800x\"", "\"x\\udc00\"", "{\"\\ud800\":1}", "[\"\\udbff\\udbff\"]"})
            refused(batch(node, "[" + put(NS, witness, "1") + "," + put(NS, "v", value) + "]"), 400, "kv_bad_request", "kv_bad_body");
        refused(node.http("PUT", Wire.KV + "/" + NS + "/v", "{\"value\":\"\\ud800x\",\"forever\":true}", Map.of()), 400, "kv_bad_request", "kv_bad_body");
        // README "Key text": an unpaired surrogate escape in a key is kv_bad_key.
        refused(batch(node, "[" + put(NS, witness, "1") + ",{\"op\":\"put\",\"ns\":\"" + NS + "\",\"key\":\"k\\ud800\",\"value\":1,\"forever\":true}]"),
                400, "kv_bad_request", "kv_bad_key");
        assertAbsent(witness);
        assertAbsent("v");
        // A proper pair, escaped, is stored as the character it is.
        JsonNode stored = ok(node, put(NS, "pair", "\"\\ud83d\\ude00\""), get(NS, "pair"));
        assertThat(stored.get(1).get("value").asText()).isEqualTo("\uD83D\uDE00");
    }

    @Test
    void aLoneSurrogateInAnUnknownOpNameStillAnswersJson() {
        refused(batch(node, "[{\"op\":\"\\ud800\",\"ns\":\"a\",\"key\":\"k\"}]"), 400, "kv_bad_request", "kv_unknown_op");
        refused(node.http("PUT", "/api/v1/admin/settings", "{\"\\udc00\":1}", Map.of()), 400, "kv_bad_request", "kv_bad_request");
    }

    @Test
    void aValueNestedTooDeepToReadBackIsRefused() {
        String deep = "[".repeat(600) + "1" + "]".repeat(600);
        refused(batch(node, "[" + put(NS, "deep", deep) + "]"), 400, "kv_bad_request", "kv_bad_body");
        String fits = "[".repeat(400) + "1" + "]".repeat(400);
        JsonNode stored = ok(node, put(NS, "deep", fits), "{\"op\":\"getPrefix\",\"ns\":\"" + NS + "\",\"prefix\":\"deep\"}");
        assertThat(stored.get(1).get("rows").get(0).get("key").asText()).isEqualTo("deep");
    }

    // ---- what Jetty refuses before routing

    @Test
    void jettysOwnRefusalsAnswerTheJsonErrorBody() {
        String host = "127.0.0.1";
        RawHttp.Answer bigHeaders = RawHttp.send(node.baseUrl, "GET", "/healthz", Map.of("X-Big", "x".repeat(64 * 1024)), null);
        assertRefusedRaw(bigHeaders, 431, "headers_too_large");
        RawHttp.Answer badLine = RawHttp.exchange(node.baseUrl, "GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), Duration.ofSeconds(10));
        assertThat(badLine.status()).isEqualTo(400);
        assertJsonError(badLine);
        RawHttp.Answer version = RawHttp.exchange(node.baseUrl, ("GET /healthz HTTP/7.0\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), Duration.ofSeconds(10));
        assertThat(version.status()).isIn(400, 505);
        assertJsonError(version);
        RawHttp.Answer preface = RawHttp.exchange(node.baseUrl, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), Duration.ofSeconds(10));
        assertThat(preface.status()).isIn(400, 426);
        assertJsonError(preface);
        RawHttp.Answer longUri = RawHttp.send(node.baseUrl, "GET", "/api/v1/kv/a/" + "k".repeat(70_000), Map.of(), null);
        assertThat(longUri.status()).isIn(414, 431);
        assertThat(assertJsonError(longUri).get("detail").asText()).doesNotContain("null");
        // A malformed %-escape is a path the server cannot read: a bad key, said in words.
        RawHttp.Answer badEscape = RawHttp.send(node.baseUrl, "GET", "/api/v1/kv/a/%ZZ", Map.of(), null);
        assertRefusedRaw(badEscape, 400, "kv_bad_key");
        assertThat(Wire.json(badEscape.body()).get("detail").asText()).contains("%-escape");
        RawHttp.Answer noHost = RawHttp.exchange(node.baseUrl, "GET /healthz HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), Duration.ofSeconds(10));
        assertThat(noHost.status()).isEqualTo(400);
        assertJsonError(noHost);
        RawHttp.Answer badEncoding = RawHttp.exchange(node.baseUrl, ("POST /api/v1/kv HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked, zip\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), Duration.ofSeconds(10));
        assertThat(badEncoding.status()).isBetween(400, 599);
        assertJsonError(badEncoding);
        assertThat(node.get("/healthz").statusCode()).isEqualTo(200);
    }

    @Test
    void aDeclaredBodyLargerThanTheLimitIs413BeforeAnyByteIsRead() {
        byte[] head = ("POST /api/v1/kv HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 33554433\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        assertRefusedRaw(RawHttp.exchange(node.baseUrl, head, Duration.ofSeconds(10)), 413, "payload_too_large");
    }

    // ---- admin

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"a:b:7298", "host", "host:", ":7298", "host:0", "host:65536", "host:-1", "host:+80", "host:7298x",
            "-bad-.example:7298", "under_score:7298", "a..b:7298", "999.1.1.1:7298", "[::1:7298", "[zz::1]:7298", "[1:2:3:4:5:6:7:8:9]:7298",
            "h\u00e9llo:7298", "host :7298", "exa mple:7298"})
    void aBadMemberAddressIsABadRequestNeverAnInternalError(String address) {
        String body = "{\"id\":\"n9\",\"raftAddress\":" + Wire.str(address) + ",\"httpAddress\":" + Wire.str(address) + "}";
        refused(node.post("/api/v1/admin/members", body), 400, "kv_bad_request", "kv_bad_request");
    }

    @Test
    void aBadMemberIdIsABadRequest() {
        refused(node.post("/api/v1/admin/members", "{\"id\":\"n 9\",\"raftAddress\":\"127.0.0.1:1\",\"httpAddress\":\"127.0.0.1:2\"}"),
                400, "kv_bad_request", "kv_bad_request");
    }

    @Test
    void theAdminRoutesOwn404sKeepTheirMeaning() {
        JsonNode member = refused(node.http("DELETE", "/api/v1/admin/members/n9", null, Map.of()), 404, "not_found", "not_found");
        assertThat(member.get("detail").asText()).contains("n9").doesNotContain("no route");
        JsonNode leadership = refused(node.post("/api/v1/admin/leadership", "{\"to\":\"n9\"}"), 404, "not_found", "not_found");
        assertThat(leadership.get("detail").asText()).contains("n9").doesNotContain("no route");
        JsonNode path = refused(node.get("/api/v1/nowhere"), 404, "not_found", "not_found");
        assertThat(path.get("detail").asText()).contains("no route");
    }

    // ---- metrics

    @Test
    void madeUpMethodsAndPathsDoNotGrowTheMetrics() {
        for (int i = 0; i < 20; i++) {
            RawHttp.send(node.baseUrl, "WARM" + i, "/warm/" + i, Map.of(), null);
            node.get("/warm/" + i);
        }
        node.get("/metrics"); // a scrape counts itself once it has answered
        java.util.Set<String> before = series(node.get("/metrics").body());
        for (int i = 0; i < 300; i++) {
            RawHttp.Answer a = RawHttp.send(node.baseUrl, "M" + i + "X", "/made/up/" + i, Map.of(), null);
            assertJsonError(a);
            assertThat(node.http("GET", "/nowhere/" + i + "?q=" + i, null, Map.of()).statusCode()).isEqualTo(404);
        }
        String after = node.get("/metrics").body();
        // The same series before and after: only their counts and sums moved.
        assertThat(series(after)).isEqualTo(before);
        assertThat(after).contains("method=\"OTHER\"").contains("route=\"unmatched\"").doesNotContain("M1X").doesNotContain("/made/up");
    }

    // ---- helpers

    /** The metric names with their labels, without values and comments. */
    static java.util.Set<String> series(String scrape) {
        java.util.Set<String> names = new java.util.TreeSet<>();
        for (String line : scrape.split("\n"))
            if (!line.startsWith("#") && !line.isBlank()) names.add(line.substring(0, line.lastIndexOf(' ')));
        return names;
    }

    static byte[] bytes(String prefix, int... tail) {
        byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[p.length + tail.length];
        System.arraycopy(p, 0, out, 0, p.length);
        for (int i = 0; i < tail.length; i++) out[p.length + i] = (byte) tail[i];
        return out;
    }

    static JsonNode refused(HttpResponse<String> r, int status, String error, String reason) {
        JsonNode body = Wire.refused(r, status, error, reason);
        assertThat(body.get("detail").asText()).as(r.body()).doesNotContainPattern(NAMES_CODE);
        return body;
    }

    static void assertRefusedRaw(RawHttp.Answer a, int status, String reason) {
        assertThat(a.status()).as(a.body()).isEqualTo(status);
        JsonNode body = assertJsonError(a);
        assertThat(body.get("reason").asText()).as(a.body()).isEqualTo(reason);
    }

    static JsonNode assertJsonError(RawHttp.Answer a) {
        assertThat(a.header("content-type")).as(a.status() + " " + a.body()).startsWith("application/json");
        JsonNode body = Wire.json(a.body());
        assertThat(Wire.fieldNames(body)).as(a.body()).containsExactlyInAnyOrder("error", "reason", "detail");
        assertThat(body.get("detail").asText()).as(a.body()).isNotBlank().doesNotContainPattern(NAMES_CODE);
        return body;
    }

    static void assertAbsent(String key) {
        JsonNode results = ok(node, get(NS, key));
        assertThat(results.get(0).get("found").asBoolean()).as("key %s must not have been written", key).isFalse();
    }
}
