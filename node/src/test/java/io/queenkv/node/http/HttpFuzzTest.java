package io.queenkv.node.http;

import static io.queenkv.node.testing.property.Gen.weighted;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.kv.Refusal.Reason;
import io.queenkv.node.testing.LocalNode;
import io.queenkv.node.testing.property.Gen;
import io.queenkv.node.testing.property.PropertyRunner;

/**
 * Fuzzes every route of a real node (in this JVM, over real sockets) with requests generated from
 * valid calls and then mutated (bytes flipped, bodies cut, numbers blown up, bad UTF-8, lone
 * surrogates, deep nesting, big arrays, wrong types, duplicate fields, unknown ops, odd methods,
 * paths, query strings and headers), and with requests made from scratch. Each sequence checks:
 *
 * <ul>
 *   <li>every answer has a documented status; every error has the JSON body of API.md, its
 *       {@code error} and status those of its {@code reason} in the reason table, and a detail that
 *       names no class;</li>
 *   <li>after the sequence the node still serves: {@code /healthz} and a valid call work;</li>
 *   <li>the sequence's namespace holds exactly what its accepted calls imply: a ledger of the writes
 *       answered 200 with {@code applied:true} against a final {@code getPrefix} scan.</li>
 * </ul>
 *
 * Each sequence writes to a namespace of its own ({@code fz<n>}, substituted into the generated
 * requests when they are sent), so sequences, and the minimiser's replays, start from empty state.
 * {@value #SEQUENCES} sequences run by default (about 20 s on two cores); a failure
 * prints the seed and the minimised requests. Longer:
 * {@code mvn -pl node test -Dtest=HttpFuzzTest -Dqueenkv.property.tries=5000}.
 */
class HttpFuzzTest {
    static final int SEQUENCES = 200;
    static final String NS_TOKEN = "fz";
    static final Set<Integer> DOCUMENTED = Set.of(200, 400, 404, 408, 409, 413, 414, 426, 429, 431, 501, 503, 505);
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(20);
    static final String SETTINGS_DEFAULTS = "{\"maxOpsPerCall\":256,\"maxKeysPerCall\":1024,\"maxValueBytes\":65536,"
            + "\"maxBodyBytes\":33554432,\"writeRate\":1000000,\"readRate\":1000000}";

    @TempDir
    static Path dir;
    static LocalNode node;
    static final AtomicInteger RUNS = new AtomicInteger();

    @BeforeAll
    static void start() throws IOException {
        node = LocalNode.start(dir, Map.of("QUEEN_KV_WRITE_RATE", "1000000", "QUEEN_KV_READ_RATE", "1000000"));
    }

    @AfterAll
    static void stop() throws IOException {
        if (node != null) node.close();
    }

    @Test
    void everyAnswerIsDocumentedAndTheStateIsWhatTheAcceptedCallsImply() {
        PropertyRunner.assertHolds(SEQUENCES, CALL.list(4, 24), HttpFuzzTest::check);
    }

    // ================================================================= one request

    /** One request as generated: {@code ns} and idempotency keys are filled in when it is sent. */
    record Call(String method, String path, Map<String, String> headers, byte[] body, String how) {
        Call with(String how, UnaryOperator<byte[]> body) {
            return new Call(method, path, headers, this.body == null ? null : body.apply(this.body), this.how + "+" + how);
        }

        Call withPath(String how, String path) {
            return new Call(method, path, headers, body, this.how + "+" + how);
        }

        Call withMethod(String how, String method) {
            return new Call(method, path, headers, body, this.how + "+" + how);
        }

        Call withHeader(String how, String name, String value) {
            Map<String, String> h = new LinkedHashMap<>(headers);
            h.put(name, value);
            return new Call(method, path, h, body, this.how + "+" + how);
        }

        @Override
        public String toString() {
            String text = body == null ? "(no body)" : new String(body, StandardCharsets.UTF_8);
            if (text.length() > 300) text = text.substring(0, 300) + "…(" + body.length + " bytes)";
            return how + ": " + method + " " + (path.length() > 200 ? path.substring(0, 200) + "…" : path) + " " + headers + " " + text;
        }
    }

    // ================================================================= generators of valid calls

    static final List<String> KEYS = List.of("k1", "k2", "k3", "k/4", "k\u00fc5", "k 6", "k%7", "k\uD83D\uDE008");
    static final Gen<String> KEY = Gen.elementOf(KEYS);
    static final Gen<String> VALUE = Gen.elementOf("1", "-2.5", "0.1", "\"s\"", "\"\"", "null", "true", "{\"a\":[1,2,{\"b\":null}]}", "[]",
            "\"\\u00e9\\n\"", "12345678901234567890", "1e300");
    static final Gen<String> EXPIRY = Gen.elementOf("\"forever\":true", "\"ttlSeconds\":3600", "\"ttlSeconds\":86400.0", "\"ttlSeconds\":2");
    static final Gen<String> EXPECT = Gen.elementOf("", "", ",\"expect\":0", ",\"expect\":1", ",\"expect\":3");
    static final Gen<String> REQUIRED = Gen.elementOf("", "", "", ",\"required\":true", ",\"required\":false");

    static String q(String s) {
        return Wire.str(s);
    }

    static final Gen<String> WRITE_OP = r -> {
        String target = ",\"ns\":\"" + NS_TOKEN + "\",\"key\":" + q(KEY.next(r));
        UnaryOperator<String> head = op -> "{\"op\":" + op + target;
        return switch (r.nextInt(5)) {
            case 0 -> head.apply("\"put\"") + ",\"value\":" + VALUE.next(r) + "," + EXPIRY.next(r) + EXPECT.next(r) + REQUIRED.next(r) + "}";
            case 1 -> head.apply("\"putIfAbsent\"") + ",\"value\":" + VALUE.next(r) + "," + EXPIRY.next(r) + REQUIRED.next(r) + "}";
            case 2 -> head.apply("\"delete\"") + EXPECT.next(r) + REQUIRED.next(r) + "}";
            case 3 -> head.apply("\"incr\"") + ",\"delta\":" + Gen.elementOf("1", "-1", "0.5", "10").next(r)
                    + Gen.elementOf("", ",\"max\":5", ",\"min\":-1").next(r) + "," + EXPIRY.next(r) + REQUIRED.next(r) + "}";
            default -> head.apply("\"check\"") + ",\"expect\":" + Gen.ints(0, 4).next(r) + REQUIRED.next(r) + "}";
        };
    };

    static final Gen<String> READ_OP = r -> switch (r.nextInt(3)) {
        case 0 -> "{\"op\":\"get\",\"ns\":\"" + NS_TOKEN + "\",\"key\":" + q(KEY.next(r)) + "}";
        case 1 -> "{\"op\":\"getMany\",\"ns\":\"" + NS_TOKEN + "\",\"keys\":[" + String.join(",", KEY.map(HttpFuzzTest::q).list(0, 5).next(r)) + "]}";
        default -> "{\"op\":\"getPrefix\",\"ns\":\"" + NS_TOKEN + "\",\"prefix\":\"k\",\"limit\":" + Gen.ints(1, 5).next(r)
                + Gen.elementOf("", ",\"keysOnly\":true", ",\"after\":\"k2\"").next(r) + "}";
    };

    static final Gen<String> OP = Gen.frequency(weighted(3, WRITE_OP), weighted(2, READ_OP));

    static final Gen<Call> BATCH = r -> {
        String ops = String.join(",", OP.list(0, 4).next(r));
        String body = r.nextBoolean() ? "{\"operations\":[" + ops + "]}" : "[" + ops + "]";
        Map<String, String> headers = r.nextInt(3) == 0 ? Map.of("Idempotency-Key", Gen.elementOf("i1", "i2").next(r)) : Map.of();
        return new Call("POST", "/api/v1/kv", headers, utf8(body), "batch");
    };

    static final Gen<Call> SINGLE = r -> {
        String path = "/api/v1/kv/" + NS_TOKEN + "/" + URLEncoder.encode(KEY.next(r), StandardCharsets.UTF_8).replace("+", "%20").replace("%2F", "/");
        return switch (r.nextInt(3)) {
            case 0 -> new Call("GET", path, Map.of(), null, "single-get");
            case 1 -> new Call("PUT", path, Map.of(), utf8("{\"value\":" + VALUE.next(r) + "," + EXPIRY.next(r) + EXPECT.next(r) + "}"), "single-put");
            default -> new Call("DELETE", path, Map.of(), r.nextBoolean() ? null : utf8("{" + EXPECT.next(r).replaceFirst("^,", "") + "}"), "single-delete");
        };
    };

    static final List<String> BAD_ADDRESSES = List.of("a:b:7298", "host", ":1", "host:0", "host:99999", "-x-:1", "[zz]:1", "h o:1", "999.0.0.1:1");

    static final Gen<Call> ADMIN = r -> switch (r.nextInt(8)) {
        case 0 -> new Call("PUT", "/api/v1/admin/settings", Map.of(), utf8(Gen.elementOf("{\"maxOpsPerCall\":256}", "{\"readRate\":1000000}",
                SETTINGS_DEFAULTS, "{}").next(r)), "admin-settings");
        case 1 -> new Call("POST", "/api/v1/admin/members", Map.of(), utf8("{\"id\":\"n9\",\"raftAddress\":" + q(Gen.elementOf(BAD_ADDRESSES).next(r))
                + ",\"httpAddress\":\"127.0.0.1:2\"}"), "admin-add-member");
        case 2 -> new Call("DELETE", "/api/v1/admin/members/" + Gen.elementOf("n1", "n9", "%00", "n%2F1").next(r), Map.of(), null, "admin-remove-member");
        case 3 -> new Call("POST", "/api/v1/admin/leadership", Map.of(), utf8(Gen.elementOf("{\"to\":\"n9\"}", "{}", "", "{\"to\":\"n1\"}").next(r)), "admin-leadership");
        case 4 -> new Call("POST", "/api/v1/admin/snapshot", Map.of(), null, "admin-snapshot");
        default -> new Call("GET", Gen.elementOf("/healthz", "/readyz", "/metrics", "/api/v1/cluster", "/version").next(r), Map.of(), null, "operations");
    };

    static final Gen<Call> VALID = Gen.frequency(weighted(6, BATCH), weighted(3, SINGLE), weighted(2, ADMIN));

    // ================================================================= mutations

    static final List<String> HUGE_NUMBERS = List.of("1e2147483648", "-1e2147483648", "1e-2147483649", "1e999999999", "9".repeat(1200),
            "18446744073709551616", "-0", "1.0e+2147483647");
    static final List<byte[]> BAD_UTF8 = List.of(bytes(0xc0, 0xaf), bytes(0xc0, 0x80), bytes(0xe0, 0x80, 0xaf), bytes(0xed, 0xa0, 0x80),
            bytes(0xf4, 0x90, 0x80, 0x80), bytes(0x80), bytes(0xe2, 0x82), bytes(0xff), bytes(0xf8, 0x88, 0x80, 0x80, 0x80));
    static final List<String> FIELDS = List.of("op", "ns", "key", "keys", "value", "ttlSeconds", "forever", "expect", "required", "delta", "min",
            "max", "prefix", "after", "limit", "keysOnly", "operations", "to", "id", "raftAddress", "maxOpsPerCall", "maxBodyBytes");
    static final List<String> OTHER_TYPES = List.of("null", "true", "\"x\"", "[]", "{}", "1.5", "-1", "0", "\"\\ud800\"", "[1,[2]]", "1e2147483648");
    static final List<String> METHODS = List.of("GET", "PUT", "POST", "DELETE", "HEAD", "OPTIONS", "PATCH", "TRACE", "BREW", "get", "X-Y");
    static final List<String> PATHS = List.of("/", "/api/v1/kv/", "/api/v1/kv/" + NS_TOKEN, "/api/v1/kv//k", "/api/v1/kv/" + NS_TOKEN + "/",
            "/api/v1/kv/" + NS_TOKEN + "/%00", "/api/v1/kv/" + NS_TOKEN + "/%ff", "/api/v1/kv/" + NS_TOKEN + "/%c0%af", "/api/v1/kv/" + NS_TOKEN + "/a%2Fb",
            "/api/v1/kv/" + NS_TOKEN + "/%", "/api/v1/kv/" + NS_TOKEN + "/../x", "/api/v1/kv/%41/k", "/api/v1/admin", "/api/v1/admin/members/",
            "/api/v1/kv/" + NS_TOKEN + "/" + "k".repeat(600), "/metrics/x", "//healthz", "/api/v1/kv?x", "/healthz?x=1", "*");

    interface Mutation {
        Call apply(Call call, RandomGenerator r);
    }

    static final Gen<Mutation> MUTATION = Gen.frequency(
            weighted(3, r -> (c, rr) -> c.with("flip", b -> flip(b, rr))),
            weighted(2, r -> (c, rr) -> c.with("truncate", b -> java.util.Arrays.copyOf(b, b.length == 0 ? 0 : rr.nextInt(b.length)))),
            weighted(3, r -> (c, rr) -> c.with("huge-number", b -> replaceNumber(b, Gen.elementOf(HUGE_NUMBERS).next(rr), rr))),
            weighted(3, r -> (c, rr) -> c.with("bad-utf8", b -> insertInString(b, Gen.elementOf(BAD_UTF8).next(rr), rr))),
            weighted(2, r -> (c, rr) -> c.with("surrogate", b -> insertInString(b, utf8(Gen.elementOf("\\ud800", "\\udfff", "\\ud800\\ud800").next(rr)), rr))),
            weighted(1, r -> (c, rr) -> c.with("deep", b -> replaceValue(b, nested(Gen.elementOf(50, 999, 1001, 3000).next(rr))))),
            weighted(1, r -> (c, rr) -> c.with("big-array", b -> replaceValue(b, bigArray(Gen.elementOf(1000, 6000, 20000).next(rr))))),
            weighted(3, r -> (c, rr) -> c.with("wrong-type", b -> replaceField(b, Gen.elementOf(FIELDS).next(rr), Gen.elementOf(OTHER_TYPES).next(rr)))),
            weighted(2, r -> (c, rr) -> c.with("duplicate-field", b -> duplicateField(b, Gen.elementOf(FIELDS).next(rr), Gen.elementOf(OTHER_TYPES).next(rr)))),
            weighted(1, r -> (c, rr) -> c.with("unknown-op", b -> replaceField(b, "op", Gen.elementOf("\"frob\"", "\"GET\"", "\"put \"", "\"\"").next(rr)))),
            weighted(1, r -> (c, rr) -> c.with("tenant-field", b -> duplicateField(b, Gen.elementOf("tenant", "tenantId", "_tenant").next(rr), "\"t\""))),
            weighted(2, r -> (c, rr) -> c.withPath("query", c.path() + Gen.elementOf("?", "?x=1", "?limit=1e2147483648", "?%ff").next(rr))),
            weighted(1, r -> (c, rr) -> c.withPath("path", Gen.elementOf(PATHS).next(rr))),
            weighted(1, r -> (c, rr) -> c.withMethod("method", Gen.elementOf(METHODS).next(rr))),
            weighted(2, r -> (c, rr) -> {
                String[] header = Gen.elementOf(new String[] {"Idempotency-Key", ""}, new String[] {"Idempotency-Key", "i".repeat(300)},
                        new String[] {"Idempotency-Key", "\u00e9t\u00e9"}, new String[] {"Authorization", "Bearer nope"},
                        new String[] {"Content-Type", "text/plain; charset=latin1"}, new String[] {"Accept-Encoding", "gzip"},
                        new String[] {"X-Filler", "x".repeat(20_000)}, new String[] {"Expect", "100-continue"},
                        new String[] {"Content-Encoding", "gzip"}).next(rr);
                return c.withHeader("header", header[0], header[1]);
            }));

    static final Gen<Call> MUTATED = r -> {
        Call call = VALID.next(r);
        if (call.body() == null && r.nextBoolean()) call = new Call(call.method(), call.path(), call.headers(), utf8("{}"), call.how());
        int mutations = r.nextInt(1, 4);
        for (int i = 0; i < mutations; i++) call = MUTATION.next(r).apply(call, r);
        return call;
    };

    static final Gen<Call> SCRATCH = r -> {
        byte[] body = new byte[r.nextInt(0, 200)];
        r.nextBytes(body);
        String method = Gen.elementOf(METHODS).next(r);
        String path = r.nextBoolean() ? Gen.elementOf(PATHS).next(r) : "/api/v1/kv";
        return new Call(method, path, Map.of(), r.nextInt(4) == 0 ? null : body, "scratch");
    };

    static final Gen<Call> CALL = Gen.frequency(weighted(3, VALID), weighted(6, MUTATED), weighted(1, SCRATCH));

    // ================================================================= the property

    /** What the sequence's accepted writes imply: key → value and version, and whether a short TTL may have ended it. */
    record Stored(JsonNode value, long version, boolean mayExpire) {}

    static void check(List<Call> calls) {
        int run = RUNS.incrementAndGet();
        String ns = NS_TOKEN + run;
        assertThat(node.http("PUT", "/api/v1/admin/settings", SETTINGS_DEFAULTS, Map.of()).statusCode()).isEqualTo(200);
        Map<String, Stored> ledger = new HashMap<>();
        Set<String> recordedIdempotencyKeys = new HashSet<>();
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            byte[] body = call.body() == null ? null : replace(call.body(), utf8("\"" + NS_TOKEN + "\""), utf8("\"" + ns + "\""));
            String path = call.path().replace("/kv/" + NS_TOKEN + "/", "/kv/" + ns + "/");
            Map<String, String> headers = new LinkedHashMap<>(call.headers());
            headers.computeIfPresent("Idempotency-Key", (k, v) -> v.matches("i[12]") ? v + "-" + run : v);
            RawHttp.Answer answer = RawHttp.exchange(node.baseUrl,
                    RawHttp.request("127.0.0.1", call.method(), path, headers, body), ANSWER_WITHIN);
            String where = "call " + (i + 1) + " (" + call + ") answered " + answer.status() + " " + brief(answer.body());
            assertDocumented(answer, call.method(), where);
            boolean bodyRead = call.method().equals("POST") || call.method().equals("PUT") || call.method().equals("DELETE");
            if (answer.status() == 200 && body != null && path.startsWith("/api/v1/kv") && bodyRead)
                assertThat(strictUtf8(body)).as("accepted a body that is not UTF-8: " + where).isTrue();
            if (answer.status() == 200) account(ledger, recordedIdempotencyKeys, ns, call.method(), path, headers, body, answer, where);
        }
        assertThat(node.get("/healthz").statusCode()).isEqualTo(200);
        JsonNode results = Wire.ok(node, Wire.put(ns + "-after", "k", "1"), Wire.get(ns + "-after", "k"));
        assertThat(results.get(1).get("found").asBoolean()).isTrue();
        assertStateMatches(ns, ledger);
    }

    static void assertDocumented(RawHttp.Answer answer, String method, String where) {
        assertThat(DOCUMENTED).as(where).contains(answer.status());
        if (method.equals("HEAD")) return;
        if (answer.status() >= 400) {
            assertThat(answer.header("content-type")).as(where).startsWith("application/json");
            JsonNode error = Wire.json(answer.body());
            assertThat(Wire.fieldNames(error)).as(where).containsExactlyInAnyOrder("error", "reason", "detail");
            Reason reason = reasonNamed(error.get("reason").asText(), where);
            assertThat(error.get("error").asText()).as(where).isEqualTo(reason.error());
            assertThat(answer.status()).as(where).isEqualTo(reason.status());
            assertThat(error.get("detail").asText()).as(where).isNotBlank().doesNotContainPattern(HostileInputTest.NAMES_CODE);
            if (answer.status() == 429 || answer.status() == 503) assertThat(answer.header("retry-after")).as(where).isNotNull();
        }
    }

    static Reason reasonNamed(String wire, String where) {
        for (Reason r : Reason.values()) if (r.wire().equals(wire)) return r;
        throw new AssertionError("reason '" + wire + "' is not in the reason table: " + where);
    }

    /** Books the writes a 200 answer says were applied into the ledger. */
    static void account(Map<String, Stored> ledger, Set<String> recordedIdempotencyKeys, String ns, String method, String path,
                        Map<String, String> headers, byte[] body, RawHttp.Answer answer, String where) {
        if (!path.startsWith("/api/v1/kv") || method.equals("GET") || method.equals("HEAD")) return;
        JsonNode reply = Wire.json(answer.body());
        List<JsonNode> elements = new ArrayList<>();
        List<JsonNode> ops = new ArrayList<>();
        // POST is the batch route whatever follows it (a trailing slash, a query string); the single-key routes take no POST.
        if (method.equals("POST")) {
            JsonNode request = Wire.json(new String(body, StandardCharsets.UTF_8));
            JsonNode list = request.isArray() ? request : request.get("operations");
            boolean write = false;
            for (JsonNode op : list) {
                ops.add(op);
                write |= op.path("op").asText().matches("put|putIfAbsent|delete|incr|check");
            }
            String key = headers.get("Idempotency-Key");
            // A write call retried with a recorded Idempotency-Key answers its first answer again and applies nothing.
            if (write && key != null && !recordedIdempotencyKeys.add(key)) return;
            if (!reply.has("results")) return; // a required op aborted the call: nothing written
            reply.get("results").forEach(elements::add);
        } else {
            String[] nsAndKey = KvRoutes.nsAndKey(path);
            if (!nsAndKey[0].equals(ns)) return;
            JsonNode request = body == null || body.length == 0 ? Wire.JSON.createObjectNode() : Wire.json(new String(body, StandardCharsets.UTF_8));
            ops.add(((com.fasterxml.jackson.databind.node.ObjectNode) request.deepCopy()).put("ns", ns).put("op", method.equals("PUT") ? "put" : "delete"));
            if (!reply.has("index")) return;
            elements.add(reply);
        }
        for (JsonNode e : elements) {
            JsonNode op = ops.get(e.get("index").asInt());
            if (!op.path("ns").asText().equals(ns) || !e.path("applied").asBoolean(false)) continue;
            String key = e.get("key").asText();
            // Accepted input is stored as sent, never altered (no '?' for a lone surrogate, no '/' for an overlong one).
            if (op.path("key").isTextual()) assertThat(key).as("key as sent: " + where).isEqualTo(op.get("key").textValue());
            if (e.get("op").asText().startsWith("put"))
                assertThat(e.get("value").equals(op.get("value"))).as("value as sent: %s, stored %s; %s", brief(op.get("value")), brief(e.get("value")), where).isTrue();
            boolean shortTtl = op.has("ttlSeconds") && op.get("ttlSeconds").isNumber() && op.get("ttlSeconds").asDouble() < 600;
            switch (e.get("op").asText()) {
                case "put", "putIfAbsent" -> ledger.put(key, new Stored(e.get("value"), e.get("version").asLong(), shortTtl));
                case "incr" -> ledger.put(key, new Stored(e.get("value"), e.get("version").asLong(),
                        ledger.containsKey(key) ? ledger.get(key).mayExpire() || shortTtl : shortTtl));
                case "delete" -> ledger.remove(key);
                default -> { } // check writes nothing
            }
        }
    }

    /** A getPrefix scan of every first character the ledger's keys start with, against the ledger. */
    static void assertStateMatches(String ns, Map<String, Stored> ledger) {
        Set<String> prefixes = new TreeSet<>(List.of("k"));
        for (String key : ledger.keySet()) prefixes.add(key.substring(0, key.offsetByCodePoints(0, 1)));
        Map<String, JsonNode> found = new LinkedHashMap<>();
        for (String prefix : prefixes) {
            String after = null;
            while (true) {
                JsonNode page = Wire.ok(node, "{\"op\":\"getPrefix\",\"ns\":\"" + ns + "\",\"prefix\":" + q(prefix) + ",\"limit\":1000"
                        + (after == null ? "" : ",\"after\":" + q(after)) + "}").get(0);
                page.get("rows").forEach(row -> found.put(row.get("key").asText(), row));
                if (!page.get("truncated").asBoolean()) break;
                after = page.get("nextAfter").asText();
            }
        }
        for (Map.Entry<String, JsonNode> row : found.entrySet()) {
            Stored expected = ledger.get(row.getKey());
            assertThat(expected).as("key %s is stored (%s) but no accepted write put it there; ledger %s", row.getKey(), brief(row.getValue()),
                    brief(ledger)).isNotNull();
            assertThat(row.getValue().get("value").equals(expected.value())).as("value of %s: %s, acknowledged %s", row.getKey(),
                    brief(row.getValue().get("value")), brief(expected.value())).isTrue();
            assertThat(row.getValue().get("version").asLong()).as("version of %s", row.getKey()).isEqualTo(expected.version());
        }
        for (Map.Entry<String, Stored> entry : ledger.entrySet())
            if (!entry.getValue().mayExpire())
                assertThat(found.keySet()).as("key %s was acknowledged as written; ledger %s", entry.getKey(), brief(ledger)).contains(entry.getKey());
    }

    // ================================================================= byte surgery

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** At most 300 characters of {@code o}: reports stay readable with big bodies in them. */
    static String brief(Object o) {
        String s = String.valueOf(o);
        return s.length() <= 300 ? s : s.substring(0, 300) + "…(" + s.length() + " characters)";
    }

    static boolean strictUtf8(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }

    static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) out[i] = (byte) values[i];
        return out;
    }

    static byte[] flip(byte[] b, RandomGenerator r) {
        if (b.length == 0) return b;
        byte[] out = b.clone();
        int at = r.nextInt(b.length);
        out[at] = r.nextBoolean() ? (byte) (out[at] ^ (1 << r.nextInt(8))) : (byte) r.nextInt(256);
        return out;
    }

    static byte[] splice(byte[] b, int from, int to, byte[] insert) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(b.length + insert.length);
        out.write(b, 0, from);
        out.writeBytes(insert);
        out.write(b, to, b.length - to);
        return out.toByteArray();
    }

    static byte[] replace(byte[] b, byte[] what, byte[] with) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(b.length);
        int i = 0;
        while (i < b.length) {
            if (i + what.length <= b.length && java.util.Arrays.equals(b, i, i + what.length, what, 0, what.length)) {
                out.writeBytes(with);
                i += what.length;
            } else {
                out.write(b[i++]);
            }
        }
        return out.toByteArray();
    }

    /** Replaces one number of the body (a run of digits not inside a string, roughly) with {@code number}. */
    static byte[] replaceNumber(byte[] b, String number, RandomGenerator r) {
        String s = new String(b, StandardCharsets.ISO_8859_1);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?<=[:\\[,])-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?").matcher(s);
        List<int[]> spans = new ArrayList<>();
        while (m.find()) spans.add(new int[] {m.start(), m.end()});
        if (spans.isEmpty()) return splice(b, b.length / 2, b.length / 2, utf8(number));
        int[] span = spans.get(r.nextInt(spans.size()));
        return splice(b, span[0], span[1], utf8(number));
    }

    /** Inserts {@code bytes} just after one of the body's opening quotes: into a key, a value or a field name. */
    static byte[] insertInString(byte[] b, byte[] bytes, RandomGenerator r) {
        List<Integer> quotes = new ArrayList<>();
        for (int i = 0; i < b.length; i++) if (b[i] == '"') quotes.add(i);
        int at = quotes.isEmpty() ? (b.length == 0 ? 0 : r.nextInt(b.length)) : quotes.get(r.nextInt(quotes.size())) + 1;
        return splice(b, at, at, bytes);
    }

    static byte[] replaceValue(byte[] b, String json) {
        return replaceField(b, "value", json);
    }

    /** Replaces the value of the first {@code "field":} of the body (up to the next , or }) with {@code json}. */
    static byte[] replaceField(byte[] b, String field, String json) {
        String s = new String(b, StandardCharsets.UTF_8);
        String name = "\"" + field + "\":";
        int at = s.indexOf(name);
        if (at < 0) return b;
        int start = at + name.length();
        int end = valueEnd(s, start);
        return utf8(s.substring(0, start) + json + s.substring(end));
    }

    /** Where the JSON value starting at {@code start} ends: a scan that respects strings and nesting. */
    static int valueEnd(String s, int start) {
        int depth = 0;
        boolean inString = false;
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            if (inString) {
                if (c == '\\') i++;
                else if (c == '"') inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '[' || c == '{') {
                depth++;
            } else if (c == ']' || c == '}') {
                if (depth == 0) return i;
                depth--;
            } else if (c == ',' && depth == 0) {
                return i;
            }
        }
        return s.length();
    }

    /** Adds {@code "field":json} at the start of the first object of the body. */
    static byte[] duplicateField(byte[] b, String field, String json) {
        String s = new String(b, StandardCharsets.UTF_8);
        int brace = s.indexOf('{');
        if (brace < 0) return b;
        boolean empty = brace + 1 < s.length() && s.charAt(brace + 1) == '}';
        return utf8(s.substring(0, brace + 1) + "\"" + field + "\":" + json + (empty ? "" : ",") + s.substring(brace + 1));
    }

    static String nested(int depth) {
        return "[".repeat(depth) + "1" + "]".repeat(depth);
    }

    static String bigArray(int size) {
        StringBuilder sb = new StringBuilder(size * 2 + 2).append('[');
        for (int i = 0; i < size; i++) sb.append(i == 0 ? "" : ",").append(i % 10);
        return sb.append(']').toString();
    }
}
