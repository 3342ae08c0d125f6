package io.queenkv.node.http;

import static io.queenkv.node.http.Wire.batch;
import static io.queenkv.node.http.Wire.fieldNames;
import static io.queenkv.node.http.Wire.get;
import static io.queenkv.node.http.Wire.json;
import static io.queenkv.node.http.Wire.ok;
import static io.queenkv.node.http.Wire.put;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.testing.LocalNode;

/** {@code POST /api/v1/kv}: the envelope, every op's result element field by field, and the call's semantics. */
class BatchRouteTest {
    /** RFC 3339 UTC, +00:00, at most 6 fraction digits, no trailing zero in the fraction. */
    static final Pattern TIMESTAMP = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{0,5}[1-9])?\\+00:00");

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

    // ---- the envelope

    @Test
    void anEmptyListAnswersEmptyResults() {
        for (String body : List.of("[]", "{\"operations\":[]}", " [ ] ")) {
            HttpResponse<String> r = batch(node, body);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type")).get().asString().startsWith("application/json");
            assertThat(json(r)).isEqualTo(json("{\"results\":[]}"));
        }
    }

    @Test
    void aBareArrayIsACall() {
        HttpResponse<String> r = batch(node, "[" + put("bare", "k", "\"v\"") + "," + get("bare", "k") + "]");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode results = json(r).get("results");
        assertThat(results.size()).isEqualTo(2);
        assertThat(results.get(1).get("value").asText()).isEqualTo("v");
    }

    @Test
    void otherTopLevelFieldsBesideOperationsAreTolerated() {
        HttpResponse<String> r = batch(node, "{\"operations\":[" + get("extra", "k") + "],\"comment\":\"hi\"}");
        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void aQueryStringOnTheBatchRouteIsIgnored() {
        HttpResponse<String> r = node.http("POST", "/api/v1/kv?ns=zzz&op=delete&x", "[" + put("query", "k", "1") + "]", Map.of());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r).get("results").get(0).get("applied").asBoolean()).isTrue();
    }

    @Test
    void resultsComeInInputOrderWithIndexAndTheOpNameAsSent() {
        JsonNode results = ok(node,
                get("order", "a"),
                "{\"op\":\"getMany\",\"ns\":\"order\",\"keys\":[\"a\"]}",
                "{\"op\":\"getPrefix\",\"ns\":\"order\",\"prefix\":\"a\"}",
                put("order", "a", "1"),
                "{\"op\":\"putIfAbsent\",\"ns\":\"order\",\"key\":\"b\",\"value\":1,\"forever\":true}",
                "{\"op\":\"delete\",\"ns\":\"order\",\"key\":\"c\"}",
                "{\"op\":\"incr\",\"ns\":\"order\",\"key\":\"d\",\"delta\":1,\"forever\":true}",
                "{\"op\":\"check\",\"ns\":\"order\",\"key\":\"e\",\"expect\":0}");
        List<String> names = List.of("get", "getMany", "getPrefix", "put", "putIfAbsent", "delete", "incr", "check");
        for (int i = 0; i < names.size(); i++) {
            assertThat(results.get(i).get("index").isIntegralNumber()).isTrue();
            assertThat(results.get(i).get("index").asInt()).isEqualTo(i);
            assertThat(results.get(i).get("op").asText()).isEqualTo(names.get(i));
        }
    }

    @Test
    void aLargeBodyIsReadWholeWithAContentLengthAndChunked() throws Exception {
        // Ten values just under the 64 KiB value limit: a body that grows past its first arrays as it arrives.
        for (boolean chunked : new boolean[] {false, true}) {
            String ns = chunked ? "large-chunked" : "large";
            List<String> puts = new ArrayList<>();
            for (int i = 0; i < 10; i++) puts.add(put(ns, "k" + i, "\"" + Character.toString('a' + i).repeat(60_000 + i) + "\""));
            String body = "[" + String.join(",", puts) + "]";
            HttpResponse<String> r;
            if (chunked) {
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(node.baseUrl + Wire.KV))
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))) // no Content-Length
                        .build(), HttpResponse.BodyHandlers.ofString());
            } else {
                r = batch(node, body);
            }
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            for (int i = 0; i < 10; i++) {
                JsonNode row = ok(node, get(ns, "k" + i)).get(0);
                assertThat(row.get("value").asText()).as("chunked %s, k%d", chunked, i).isEqualTo(Character.toString('a' + i).repeat(60_000 + i));
            }
        }
    }

    // ---- result elements, exact field sets

    @Test
    void getFoundAndAbsent() {
        JsonNode results = ok(node, put("get", "k", "{\"a\":[1,2,{\"b\":null}]}"), get("get", "k"), get("get", "none"));
        JsonNode found = results.get(1);
        assertThat(fieldNames(found)).containsExactly("index", "op", "found", "key", "value", "version", "expiresAt", "updatedAt");
        assertThat(found.get("found").asBoolean()).isTrue();
        assertThat(found.get("key").asText()).isEqualTo("k");
        assertThat(found.get("value")).isEqualTo(json("{\"a\":[1,2,{\"b\":null}]}"));
        assertThat(found.get("version").isIntegralNumber()).isTrue();
        assertThat(found.get("version").asLong()).isEqualTo(results.get(0).get("version").asLong());
        assertThat(found.get("expiresAt").isNull()).isTrue();
        assertThat(found.get("updatedAt").asText()).matches(TIMESTAMP);

        JsonNode absent = results.get(2);
        assertThat(fieldNames(absent)).containsExactly("index", "op", "found", "key");
        assertThat(absent.get("found").asBoolean()).isFalse();
        assertThat(absent.get("key").asText()).isEqualTo("none");
    }

    @Test
    void jsonNullIsAStoredValue() {
        JsonNode results = ok(node, put("nullv", "k", "null"), get("nullv", "k"));
        assertThat(results.get(0).get("applied").asBoolean()).isTrue();
        assertThat(results.get(0).has("value")).isTrue();
        assertThat(results.get(0).get("value").isNull()).isTrue();
        assertThat(results.get(1).get("found").asBoolean()).isTrue();
        assertThat(results.get(1).get("value").isNull()).isTrue();
    }

    @Test
    void valuesComeBackExactly() {
        String value = "{\"big\":123456789012345678901234567890,\"dec\":0.10,\"neg\":-1.5e-7,\"s\":\"é\\\"\\n\",\"arr\":[true,false,null]}";
        JsonNode results = ok(node, put("exact", "k", value), get("exact", "k"));
        assertThat(results.get(1).get("value")).isEqualTo(json(value));
        assertThat(results.get(1).get("value").get("big").bigIntegerValue()).isEqualTo(new java.math.BigInteger("123456789012345678901234567890"));
    }

    @Test
    void getManyRowsInKeyByteOrderAndMissingInInputOrder() {
        ok(node, put("many", "b", "2"), put("many", "a", "1"), put("many", "é", "3"), put("many", "Z", "4"));
        JsonNode r = ok(node, "{\"op\":\"getMany\",\"ns\":\"many\",\"keys\":[\"é\",\"y\",\"b\",\"a\",\"x\",\"Z\",\"a\",\"y\"]}").get(0);
        assertThat(fieldNames(r)).containsExactly("index", "op", "rows", "missing", "truncated");
        List<String> keys = new ArrayList<>();
        for (JsonNode row : r.get("rows")) {
            assertThat(fieldNames(row)).containsExactly("key", "value", "version", "expiresAt", "updatedAt");
            keys.add(row.get("key").asText());
        }
        assertThat(keys).containsExactly("Z", "a", "b", "é");
        assertThat(r.get("rows").get(1).get("value").asInt()).isEqualTo(1);
        List<String> missing = new ArrayList<>();
        r.get("missing").forEach(m -> missing.add(m.asText()));
        assertThat(missing).startsWith("y", "x").doesNotHaveDuplicates();
        assertThat(r.get("truncated").asBoolean()).isFalse();
    }

    @Test
    void getPrefixPagesWithNextAfter() {
        for (int i = 0; i < 5; i++) ok(node, put("prefix", "p/" + i, Integer.toString(i)));
        ok(node, put("prefix", "q/0", "0"), put("prefix", "p", "\"bare\""));

        JsonNode page1 = ok(node, "{\"op\":\"getPrefix\",\"ns\":\"prefix\",\"prefix\":\"p/\",\"limit\":2}").get(0);
        assertThat(fieldNames(page1)).containsExactly("index", "op", "rows", "truncated", "nextAfter");
        assertThat(keysOf(page1)).containsExactly("p/0", "p/1");
        assertThat(page1.get("truncated").asBoolean()).isTrue();
        assertThat(page1.get("nextAfter").asText()).isEqualTo("p/1");
        for (JsonNode row : page1.get("rows"))
            assertThat(fieldNames(row)).containsExactly("key", "value", "version", "expiresAt", "updatedAt");

        JsonNode page2 = ok(node, "{\"op\":\"getPrefix\",\"ns\":\"prefix\",\"prefix\":\"p/\",\"limit\":2,\"after\":\"p/1\"}").get(0);
        assertThat(keysOf(page2)).containsExactly("p/2", "p/3");
        JsonNode page3 = ok(node, "{\"op\":\"getPrefix\",\"ns\":\"prefix\",\"prefix\":\"p/\",\"limit\":2,\"after\":\"p/3\"}").get(0);
        assertThat(keysOf(page3)).containsExactly("p/4");
        assertThat(page3.get("truncated").asBoolean()).isFalse();
        assertThat(page3.has("nextAfter")).isTrue();
        assertThat(page3.get("nextAfter").isNull()).isTrue();

        // after "" and null both mean from the start
        for (String after : List.of("\"\"", "null")) {
            JsonNode all = ok(node, "{\"op\":\"getPrefix\",\"ns\":\"prefix\",\"prefix\":\"p/\",\"after\":" + after + "}").get(0);
            assertThat(keysOf(all)).containsExactly("p/0", "p/1", "p/2", "p/3", "p/4");
        }
    }

    @Test
    void getPrefixKeysOnlyLeavesOutValue() {
        ok(node, put("keysonly", "k1", "1"), put("keysonly", "k2", "2"));
        JsonNode r = ok(node, "{\"op\":\"getPrefix\",\"ns\":\"keysonly\",\"prefix\":\"k\",\"keysOnly\":true}").get(0);
        assertThat(r.get("rows").size()).isEqualTo(2);
        for (JsonNode row : r.get("rows")) assertThat(fieldNames(row)).containsExactly("key", "version", "expiresAt", "updatedAt");
        JsonNode full = ok(node, "{\"op\":\"getPrefix\",\"ns\":\"keysonly\",\"prefix\":\"k\",\"keysOnly\":false}").get(0);
        for (JsonNode row : full.get("rows")) assertThat(row.has("value")).isTrue();
    }

    @Test
    void putAppliedAndLost() {
        JsonNode first = ok(node, put("put", "k", "\"one\"")).get(0);
        assertThat(fieldNames(first)).containsExactly("index", "op", "applied", "key", "value", "version");
        assertThat(first.get("applied").asBoolean()).isTrue();
        assertThat(first.get("value").asText()).isEqualTo("one");
        long v1 = first.get("version").asLong();
        assertThat(v1).isPositive();

        JsonNode second = ok(node, "{\"op\":\"put\",\"ns\":\"put\",\"key\":\"k\",\"value\":\"two\",\"ttlSeconds\":3600,\"expect\":" + v1 + "}").get(0);
        assertThat(second.get("applied").asBoolean()).isTrue();
        assertThat(second.get("version").asLong()).isGreaterThan(v1);
        long v2 = second.get("version").asLong();

        // lost on version: the winner's value and version
        JsonNode lost = ok(node, "{\"op\":\"put\",\"ns\":\"put\",\"key\":\"k\",\"value\":\"three\",\"forever\":true,\"expect\":" + v1 + "}").get(0);
        assertThat(fieldNames(lost)).containsExactly("index", "op", "applied", "reason", "key", "value", "version");
        assertThat(lost.get("applied").asBoolean()).isFalse();
        assertThat(lost.get("reason").asText()).isEqualTo("version");
        assertThat(lost.get("value").asText()).isEqualTo("two");
        assertThat(lost.get("version").asLong()).isEqualTo(v2);

        // lost on exists
        JsonNode exists = ok(node, "{\"op\":\"put\",\"ns\":\"put\",\"key\":\"k\",\"value\":\"x\",\"forever\":true,\"expect\":0}").get(0);
        assertThat(exists.get("reason").asText()).isEqualTo("exists");
        assertThat(exists.get("value").asText()).isEqualTo("two");

        // lost on absent: value null and version 0, both present
        JsonNode absent = ok(node, "{\"op\":\"put\",\"ns\":\"put\",\"key\":\"nope\",\"value\":\"x\",\"forever\":true,\"expect\":7}").get(0);
        assertThat(fieldNames(absent)).containsExactly("index", "op", "applied", "reason", "key", "value", "version");
        assertThat(absent.get("reason").asText()).isEqualTo("absent");
        assertThat(absent.get("value").isNull()).isTrue();
        assertThat(absent.get("version").asLong()).isZero();

        // a ttl given as a float with zero fraction is fine
        assertThat(ok(node, "{\"op\":\"put\",\"ns\":\"put\",\"key\":\"ttl60\",\"value\":1,\"ttlSeconds\":60.0}").get(0)
                .get("applied").asBoolean()).isTrue();
        // forever:false beside ttlSeconds counts as not given
        assertThat(ok(node, "{\"op\":\"put\",\"ns\":\"put\",\"key\":\"ttlf\",\"value\":1,\"ttlSeconds\":60,\"forever\":false}").get(0)
                .get("applied").asBoolean()).isTrue();
    }

    @Test
    void readsStopAtFourMiBOfValuesWithTruncated() {
        String value = "\"" + "r".repeat(65_534) + "\""; // 65,536 bytes: 64 rows are exactly 4 MiB
        List<String> puts = new ArrayList<>();
        for (int i = 0; i < 70; i++) puts.add(put("budget", String.format("k%02d", i), value));
        ok(node, puts.toArray(String[]::new));

        JsonNode prefix = ok(node, "{\"op\":\"getPrefix\",\"ns\":\"budget\",\"prefix\":\"k\"}").get(0);
        int n = prefix.get("rows").size();
        assertThat(n).isBetween(60, 64);
        assertThat(prefix.get("truncated").asBoolean()).isTrue();
        assertThat(prefix.get("nextAfter").asText()).isEqualTo(String.format("k%02d", n - 1));
        JsonNode rest = ok(node, "{\"op\":\"getPrefix\",\"ns\":\"budget\",\"prefix\":\"k\",\"after\":" + Wire.str(prefix.get("nextAfter").asText()) + "}").get(0);
        assertThat(rest.get("rows").size()).isEqualTo(70 - n);
        assertThat(rest.get("truncated").asBoolean()).isFalse();
        // keysOnly reads no values: all 70 fit
        JsonNode keys = ok(node, "{\"op\":\"getPrefix\",\"ns\":\"budget\",\"prefix\":\"k\",\"keysOnly\":true}").get(0);
        assertThat(keys.get("rows").size()).isEqualTo(70);
        assertThat(keys.get("truncated").asBoolean()).isFalse();

        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 70; i++) all.append(i == 0 ? "" : ",").append("\"").append(String.format("k%02d", i)).append("\"");
        JsonNode many = ok(node, "{\"op\":\"getMany\",\"ns\":\"budget\",\"keys\":[" + all + ",\"absent\"]}").get(0);
        assertThat(many.get("truncated").asBoolean()).isTrue();
        assertThat(many.get("rows").size()).isBetween(60, 64);
        assertThat(many.get("missing").size()).isEqualTo(1);
        assertThat(many.get("missing").get(0).asText()).isEqualTo("absent");
    }

    @Test
    void putIfAbsentAppliedAndExists() {
        JsonNode first = ok(node, "{\"op\":\"putIfAbsent\",\"ns\":\"pia\",\"key\":\"k\",\"value\":1,\"forever\":true}").get(0);
        assertThat(fieldNames(first)).containsExactly("index", "op", "applied", "key", "value", "version");
        assertThat(first.get("applied").asBoolean()).isTrue();
        JsonNode second = ok(node, "{\"op\":\"putIfAbsent\",\"ns\":\"pia\",\"key\":\"k\",\"value\":2,\"forever\":true,\"expect\":0}").get(0);
        assertThat(fieldNames(second)).containsExactly("index", "op", "applied", "reason", "key", "value", "version");
        assertThat(second.get("applied").asBoolean()).isFalse();
        assertThat(second.get("reason").asText()).isEqualTo("exists");
        assertThat(second.get("value").asInt()).isEqualTo(1);
        assertThat(second.get("version").asLong()).isEqualTo(first.get("version").asLong());
    }

    @Test
    void deleteAppliedAbsentAndExpectZero() {
        long v = ok(node, put("del", "k", "\"gone\"")).get(0).get("version").asLong();
        JsonNode deleted = ok(node, "{\"op\":\"delete\",\"ns\":\"del\",\"key\":\"k\"}").get(0);
        assertThat(fieldNames(deleted)).containsExactly("index", "op", "applied", "key", "value", "version");
        assertThat(deleted.get("applied").asBoolean()).isTrue();
        assertThat(deleted.get("value").asText()).isEqualTo("gone");
        assertThat(deleted.get("version").asLong()).isEqualTo(v);

        JsonNode absent = ok(node, "{\"op\":\"delete\",\"ns\":\"del\",\"key\":\"k\"}").get(0);
        assertThat(fieldNames(absent)).containsExactly("index", "op", "applied", "reason", "key", "value", "version");
        assertThat(absent.get("applied").asBoolean()).isFalse();
        assertThat(absent.get("reason").asText()).isEqualTo("absent");
        assertThat(absent.get("value").isNull()).isTrue();
        assertThat(absent.get("version").asLong()).isZero();

        JsonNode expectZero = ok(node, "{\"op\":\"delete\",\"ns\":\"del\",\"key\":\"k\",\"expect\":0}").get(0);
        assertThat(fieldNames(expectZero)).containsExactly("index", "op", "applied", "key", "value", "version");
        assertThat(expectZero.get("applied").asBoolean()).isTrue();
        assertThat(expectZero.get("value").isNull()).isTrue();
        assertThat(expectZero.get("version").asLong()).isZero();

        // a re-created key takes a new version, never the old one
        long v2 = ok(node, put("del", "k", "\"again\"")).get(0).get("version").asLong();
        assertThat(v2).isGreaterThan(v);
    }

    @Test
    void incrCountsExactlyAndRespectsBounds() {
        JsonNode a = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"dec\",\"delta\":0.1,\"forever\":true}").get(0);
        assertThat(fieldNames(a)).containsExactly("index", "op", "applied", "key", "value", "version");
        JsonNode b = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"dec\",\"delta\":0.2,\"forever\":true}").get(0);
        assertThat(b.get("value").decimalValue()).isEqualByComparingTo(new BigDecimal("0.3"));
        assertThat(ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"dec\",\"delta\":0,\"forever\":true}").get(0).toString())
                .contains("\"value\":0.3,");
        assertThat(ok(node, get("incr", "dec")).get(0).get("value").decimalValue()).isEqualByComparingTo("0.3");

        // an absent counter starts at delta; negative deltas work
        JsonNode neg = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"neg\",\"delta\":-5,\"forever\":true}").get(0);
        assertThat(neg.get("value").asLong()).isEqualTo(-5);
        assertThat(neg.get("value").isIntegralNumber()).isTrue();

        // past a bound: applied:false, reason limit, current value, never saturates
        ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"bounded\",\"delta\":9,\"max\":10,\"forever\":true}");
        JsonNode limit = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"bounded\",\"delta\":2,\"max\":10,\"forever\":true}").get(0);
        assertThat(fieldNames(limit)).containsExactly("index", "op", "applied", "reason", "key", "value", "version");
        assertThat(limit.get("applied").asBoolean()).isFalse();
        assertThat(limit.get("reason").asText()).isEqualTo("limit");
        assertThat(limit.get("value").asInt()).isEqualTo(9);
        // min applies to a fresh counter's delta too
        JsonNode fresh = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"fresh\",\"delta\":-1,\"min\":0,\"forever\":true}").get(0);
        assertThat(fresh.get("reason").asText()).isEqualTo("limit");
        assertThat(fresh.get("value").isIntegralNumber()).isTrue();
        assertThat(fresh.get("value").asInt()).isZero();
        assertThat(fresh.get("version").asLong()).isZero();
        // a live non-number: type
        ok(node, put("incr", "text", "\"abc\""));
        JsonNode type = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"text\",\"delta\":1,\"forever\":true}").get(0);
        assertThat(type.get("reason").asText()).isEqualTo("type");
        assertThat(type.get("value").isIntegralNumber()).as("a live non-number answers 0").isTrue();
        assertThat(type.get("value").asInt()).isZero();
    }

    @Test
    @org.junit.jupiter.api.Timeout(30)
    void anIncrWhoseSumWouldBeTooLongToStoreIsPastABound() {
        // 1e100000 is short as JSON; 1e100000 + 1 would need 100,001 digits, over the 65,536-byte value limit
        JsonNode big = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"huge\",\"delta\":1e100000,\"forever\":true}").get(0);
        assertThat(big.get("applied").asBoolean()).isTrue();
        assertThat(big.get("value").decimalValue()).isEqualByComparingTo("1e100000");
        JsonNode plusOne = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"huge\",\"delta\":1,\"forever\":true}").get(0);
        assertThat(plusOne.get("applied").asBoolean()).isFalse();
        assertThat(plusOne.get("reason").asText()).isEqualTo("limit");
        assertThat(plusOne.get("version").asLong()).isEqualTo(big.get("version").asLong());
        // a stored (put) number is held to the same rule, and answering does not take long
        ok(node, put("incr", "huger", "1e100000000"));
        JsonNode r = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"huger\",\"delta\":-1,\"forever\":true}").get(0);
        assertThat(r.get("reason").asText()).isEqualTo("limit");
        // far apart but within the limit is fine: 1e500 + 1 has 501 digits
        ok(node, put("incr", "wide", "1e500"));
        JsonNode wide = ok(node, "{\"op\":\"incr\",\"ns\":\"incr\",\"key\":\"wide\",\"delta\":1,\"forever\":true}").get(0);
        assertThat(wide.get("applied").asBoolean()).isTrue();
        assertThat(wide.get("value").decimalValue()).isEqualByComparingTo(java.math.BigDecimal.TEN.pow(500).add(java.math.BigDecimal.ONE));
    }

    @Test
    void checkHoldsAndFails() {
        long v = ok(node, put("check", "k", "1")).get(0).get("version").asLong();
        JsonNode holds = ok(node, "{\"op\":\"check\",\"ns\":\"check\",\"key\":\"k\",\"expect\":" + v + "}").get(0);
        assertThat(fieldNames(holds)).containsExactly("index", "op", "applied", "key", "version");
        assertThat(holds.get("applied").asBoolean()).isTrue();
        assertThat(holds.get("version").asLong()).isEqualTo(v);
        JsonNode absentHolds = ok(node, "{\"op\":\"check\",\"ns\":\"check\",\"key\":\"none\",\"expect\":0}").get(0);
        assertThat(fieldNames(absentHolds)).containsExactly("index", "op", "applied", "key", "version");
        assertThat(absentHolds.get("version").asLong()).isZero();

        JsonNode fails = ok(node, "{\"op\":\"check\",\"ns\":\"check\",\"key\":\"k\",\"expect\":" + (v + 1000) + "}").get(0);
        assertThat(fields(fails)).startsWith("index", "op", "applied", "reason", "key");
        assertThat(fails.get("applied").asBoolean()).isFalse();
        assertThat(fails.get("reason").asText()).isEqualTo("version");
        assertThat(fails.get("version").asLong()).isEqualTo(v);
        // check writes nothing
        assertThat(ok(node, get("check", "k")).get(0).get("version").asLong()).isEqualTo(v);
    }

    // ---- call semantics

    @Test
    void aNumericKeyIsItsJsonText() {
        ok(node, "{\"op\":\"put\",\"ns\":\"numkey\",\"key\":5,\"value\":\"five\",\"forever\":true}");
        JsonNode r = ok(node, get("numkey", "5"), "{\"op\":\"get\",\"ns\":\"numkey\",\"key\":5}",
                "{\"op\":\"getMany\",\"ns\":\"numkey\",\"keys\":[5,\"5\",true]}");
        assertThat(r.get(0).get("value").asText()).isEqualTo("five");
        assertThat(r.get(1).get("key").asText()).isEqualTo("5");
        assertThat(r.get(1).get("key").isTextual()).isTrue();
        assertThat(r.get(2).get("rows").get(0).get("key").asText()).isEqualTo("5");
        assertThat(r.get(2).get("missing").get(0).asText()).isEqualTo("true");
    }

    @Test
    void readsSeeTheCallsOwnWrites() {
        ok(node, put("own", "k", "\"old\""));
        JsonNode r = ok(node, get("own", "k"), put("own", "k", "\"new\""), get("own", "k"),
                "{\"op\":\"getMany\",\"ns\":\"own\",\"keys\":[\"k\",\"k2\"]}",
                put("own", "k2", "\"two\""),
                "{\"op\":\"getPrefix\",\"ns\":\"own\",\"prefix\":\"k\"}",
                "{\"op\":\"delete\",\"ns\":\"own\",\"key\":\"k3\"}",
                get("own", "k2"));
        assertThat(r.get(0).get("value").asText()).isEqualTo("old");
        assertThat(r.get(2).get("value").asText()).isEqualTo("new");
        assertThat(r.get(3).get("rows").size()).isEqualTo(1);
        assertThat(r.get(3).get("rows").get(0).get("value").asText()).isEqualTo("new");
        assertThat(r.get(3).get("missing").get(0).asText()).isEqualTo("k2");
        assertThat(keysOf(r.get(5))).containsExactly("k", "k2");
        assertThat(r.get(7).get("value").asText()).isEqualTo("two");
    }

    @Test
    void aFailedRequiredOpAbortsTheWholeCall() {
        long v = ok(node, put("req", "held", "\"orig\"")).get(0).get("version").asLong();
        HttpResponse<String> resp = batch(node, "[" + put("req", "a", "1") + ","
                + "{\"op\":\"incr\",\"ns\":\"req\",\"key\":\"n\",\"delta\":1,\"forever\":true},"
                + "{\"op\":\"put\",\"ns\":\"req\",\"key\":\"held\",\"value\":\"x\",\"forever\":true,\"expect\":0,\"required\":true},"
                + put("req", "b", "2") + "]");
        assertThat(resp.statusCode()).isEqualTo(200);
        JsonNode body = json(resp);
        assertThat(fieldNames(body)).containsExactly("ok", "reason", "failedIndex", "kvReason", "version", "value");
        assertThat(body.get("ok").asBoolean()).isFalse();
        assertThat(body.get("reason").asText()).isEqualTo("kv_precondition");
        assertThat(body.get("failedIndex").asInt()).isEqualTo(2);
        assertThat(body.get("kvReason").asText()).isEqualTo("exists");
        assertThat(body.get("version").asLong()).isEqualTo(v);
        assertThat(body.get("value").asText()).isEqualTo("orig");

        JsonNode after = ok(node, get("req", "a"), get("req", "n"), get("req", "b"), get("req", "held"));
        assertThat(after.get(0).get("found").asBoolean()).isFalse();
        assertThat(after.get(1).get("found").asBoolean()).isFalse();
        assertThat(after.get(2).get("found").asBoolean()).isFalse();
        assertThat(after.get(3).get("version").asLong()).isEqualTo(v);

        // every kvReason: absent (value null, version 0), version, limit, type
        assertAbort("{\"op\":\"delete\",\"ns\":\"req\",\"key\":\"nobody\",\"required\":true}", "absent", 0, "null");
        assertAbort("{\"op\":\"check\",\"ns\":\"req\",\"key\":\"held\",\"expect\":" + (v + 99) + ",\"required\":true}", "version", v, "\"orig\"");
        // a refused incr answers the effective number: 0 for an absent key or a live non-number
        assertAbort("{\"op\":\"incr\",\"ns\":\"req\",\"key\":\"lim\",\"delta\":5,\"max\":1,\"forever\":true,\"required\":true}", "limit", 0, "0");
        assertAbort("{\"op\":\"incr\",\"ns\":\"req\",\"key\":\"held\",\"delta\":5,\"forever\":true,\"required\":true}", "type", v, "0");

        // required:false and a lost write without required do not abort
        JsonNode r = ok(node, "{\"op\":\"delete\",\"ns\":\"req\",\"key\":\"nobody\",\"required\":false}", put("req", "c", "3"));
        assertThat(r.get(0).get("applied").asBoolean()).isFalse();
        assertThat(r.get(1).get("applied").asBoolean()).isTrue();
    }

    private void assertAbort(String failingOp, String kvReason, long version, String valueJson) {
        HttpResponse<String> resp = batch(node, "[" + put("req", "w-" + kvReason, "1") + "," + failingOp + "]");
        assertThat(resp.statusCode()).isEqualTo(200);
        JsonNode body = json(resp);
        assertThat(body.get("ok").asBoolean()).isFalse();
        assertThat(body.get("reason").asText()).isEqualTo("kv_precondition");
        assertThat(body.get("failedIndex").asInt()).isEqualTo(1);
        assertThat(body.get("kvReason").asText()).isEqualTo(kvReason);
        assertThat(body.get("version").asLong()).isEqualTo(version);
        assertThat(body.has("value")).isTrue();
        assertThat(body.get("value")).isEqualTo(json(valueJson));
        assertThat(ok(node, get("req", "w-" + kvReason)).get(0).get("found").asBoolean()).isFalse();
    }

    @Test
    void versionsAreIncreasingIntegersAndLostWritesTakeNone() {
        JsonNode r = ok(node, put("ver", "a", "1"), put("ver", "b", "1"),
                "{\"op\":\"incr\",\"ns\":\"ver\",\"key\":\"c\",\"delta\":1,\"forever\":true}");
        long a = r.get(0).get("version").asLong(), b = r.get(1).get("version").asLong(), c = r.get(2).get("version").asLong();
        assertThat(b).isEqualTo(a + 1);
        assertThat(c).isEqualTo(b + 1);
        ok(node, "{\"op\":\"putIfAbsent\",\"ns\":\"ver\",\"key\":\"a\",\"value\":2,\"forever\":true}",
                "{\"op\":\"delete\",\"ns\":\"ver\",\"key\":\"b\"}",
                "{\"op\":\"check\",\"ns\":\"ver\",\"key\":\"c\",\"expect\":" + c + "}");
        long d = ok(node, put("ver", "d", "1")).get(0).get("version").asLong();
        assertThat(d).isEqualTo(c + 1);
    }

    @Test
    void timestampsAreRfc3339UtcWithTrimmedMicroseconds() {
        OffsetDateTime before = OffsetDateTime.now(ZoneOffset.UTC).minusSeconds(5);
        ok(node, "{\"op\":\"put\",\"ns\":\"time\",\"key\":\"ttl\",\"value\":1,\"ttlSeconds\":3600}", put("time", "forever", "1"));
        OffsetDateTime after = OffsetDateTime.now(ZoneOffset.UTC).plusSeconds(5);
        JsonNode r = ok(node, get("time", "ttl"), get("time", "forever"),
                "{\"op\":\"getPrefix\",\"ns\":\"time\",\"prefix\":\"f\"}",
                "{\"op\":\"getMany\",\"ns\":\"time\",\"keys\":[\"ttl\"]}");
        JsonNode ttl = r.get(0);
        String updatedAt = ttl.get("updatedAt").asText(), expiresAt = ttl.get("expiresAt").asText();
        assertThat(updatedAt).matches(TIMESTAMP);
        assertThat(expiresAt).matches(TIMESTAMP);
        OffsetDateTime updated = OffsetDateTime.parse(updatedAt), expires = OffsetDateTime.parse(expiresAt);
        assertThat(updated).isBetween(before, after);
        assertThat(Duration.between(updated, expires)).isEqualTo(Duration.ofSeconds(3600));
        // the same instant in both rendered identically
        assertThat(r.get(3).get("rows").get(0).get("updatedAt").asText()).isEqualTo(updatedAt);

        JsonNode forever = r.get(1);
        assertThat(forever.has("expiresAt")).isTrue();
        assertThat(forever.get("expiresAt").isNull()).isTrue();
        assertThat(r.get(2).get("rows").get(0).get("expiresAt").isNull()).isTrue();
        assertThat(r.get(2).get("rows").get(0).get("updatedAt").asText()).matches(TIMESTAMP);
    }

    @Test
    void anExpiredKeyIsNeverReturnedNorCountsAsExisting() {
        ok(node, "{\"op\":\"put\",\"ns\":\"ttl\",\"key\":\"short\",\"value\":\"soon\",\"ttlSeconds\":1}",
                "{\"op\":\"incr\",\"ns\":\"ttl\",\"key\":\"ctr\",\"delta\":5,\"ttlSeconds\":1}",
                put("ttl", "stays", "1"));
        assertThat(ok(node, get("ttl", "short")).get(0).get("found").asBoolean()).isTrue();
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> !ok(node, get("ttl", "short")).get(0).get("found").asBoolean());
        JsonNode r = ok(node, get("ttl", "ctr"),
                "{\"op\":\"getMany\",\"ns\":\"ttl\",\"keys\":[\"short\",\"stays\"]}",
                "{\"op\":\"getPrefix\",\"ns\":\"ttl\",\"prefix\":\"s\"}");
        assertThat(r.get(0).get("found").asBoolean()).isFalse();
        assertThat(r.get(1).get("missing").get(0).asText()).isEqualTo("short");
        assertThat(keysOf(r.get(2))).containsExactly("stays");
        // an expired key does not exist: putIfAbsent applies, delete finds nothing, incr starts afresh
        JsonNode w = ok(node, "{\"op\":\"putIfAbsent\",\"ns\":\"ttl\",\"key\":\"short\",\"value\":\"back\",\"forever\":true}",
                "{\"op\":\"incr\",\"ns\":\"ttl\",\"key\":\"ctr\",\"delta\":1,\"forever\":true}");
        assertThat(w.get(0).get("applied").asBoolean()).isTrue();
        assertThat(w.get(1).get("value").asInt()).isEqualTo(1);
        assertThat(ok(node, get("ttl", "ctr")).get(0).get("expiresAt").isNull()).isTrue();
    }

    private static List<String> keysOf(JsonNode result) {
        List<String> keys = new ArrayList<>();
        result.get("rows").forEach(row -> keys.add(row.get("key").asText()));
        return keys;
    }

    private static List<String> fields(JsonNode n) {
        return fieldNames(n);
    }
}
