package io.queenkv.node.http;

import static io.queenkv.node.http.Wire.badRequest;
import static io.queenkv.node.http.Wire.badRequestAt;
import static io.queenkv.node.http.Wire.batch;
import static io.queenkv.node.http.Wire.get;
import static io.queenkv.node.http.Wire.json;
import static io.queenkv.node.http.Wire.ok;
import static io.queenkv.node.http.Wire.put;
import static io.queenkv.node.http.Wire.refused;
import static io.queenkv.node.http.Wire.str;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
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
 * Every refusal of API.md §1 on a node with the default limits: status, {@code error}, {@code reason},
 * a detail naming the op index, and nothing written.
 */
class ErrorContractTest {
    private static final String NS = "errors";
    private static final AtomicInteger SEQ = new AtomicInteger();

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

    // ---- the body as a whole

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"", "not json", "{", "{\"operations\":[]", "null", "42", "\"text\"", "true", "{}",
            "{\"ops\":[]}", "{\"operations\":{}}", "{\"operations\":null}", "{\"operations\":\"get\"}",
            "[] []", "{\"operations\":[]} x"})
    void anUnparseableOrMisshapenBodyIsKvBadBody(String body) {
        badRequest(batch(node, body), "kv_bad_body");
    }

    // ---- one bad op at index 3, behind a put that must not happen

    static Stream<Arguments> badOps() {
        String longNs = "a".repeat(65);
        return Stream.of(
                // kv_bad_body: an op that is not an object
                arguments("kv_bad_body", "5"),
                arguments("kv_bad_body", "\"get\""),
                arguments("kv_bad_body", "null"),
                arguments("kv_bad_body", "[]"),
                arguments("kv_bad_body", "[{\"op\":\"get\",\"ns\":\"a\",\"key\":\"k\"}]"),
                // kv_unknown_op
                arguments("kv_unknown_op", "{\"op\":\"frobnicate\",\"ns\":\"a\",\"key\":\"k\"}"),
                arguments("kv_unknown_op", "{\"op\":\"GET\",\"ns\":\"a\",\"key\":\"k\"}"),
                arguments("kv_unknown_op", "{\"ns\":\"a\",\"key\":\"k\"}"),
                arguments("kv_unknown_op", "{\"op\":5,\"ns\":\"a\",\"key\":\"k\"}"),
                // kv_bad_namespace
                arguments("kv_bad_namespace", "{\"op\":\"get\",\"key\":\"k\"}"),
                arguments("kv_bad_namespace", "{\"op\":\"get\",\"ns\":null,\"key\":\"k\"}"),
                arguments("kv_bad_namespace", "{\"op\":\"get\",\"ns\":\"\",\"key\":\"k\"}"),
                arguments("kv_bad_namespace", "{\"op\":\"get\",\"ns\":\"Upper\",\"key\":\"k\"}"),
                arguments("kv_bad_namespace", "{\"op\":\"get\",\"ns\":\"-dash\",\"key\":\"k\"}"),
                arguments("kv_bad_namespace", "{\"op\":\"get\",\"ns\":\".dot\",\"key\":\"k\"}"),
                arguments("kv_bad_namespace", "{\"op\":\"get\",\"ns\":\"a b\",\"key\":\"k\"}"),
                arguments("kv_bad_namespace", "{\"op\":\"get\",\"ns\":\"a/b\",\"key\":\"k\"}"),
                arguments("kv_bad_namespace", "{\"op\":\"put\",\"ns\":\"" + longNs + "\",\"key\":\"k\",\"value\":1,\"forever\":true}"),
                arguments("kv_bad_namespace", "{\"op\":\"getMany\",\"ns\":\"a\\n\",\"keys\":[\"k\"]}"),
                // kv_bad_key
                arguments("kv_bad_key", "{\"op\":\"get\",\"ns\":\"a\"}"),
                arguments("kv_bad_key", "{\"op\":\"get\",\"ns\":\"a\",\"key\":null}"),
                arguments("kv_bad_key", "{\"op\":\"get\",\"ns\":\"a\",\"key\":\"\"}"),
                arguments("kv_bad_key", "{\"op\":\"get\",\"ns\":\"a\",\"key\":\"a\\u0000b\"}"),
                arguments("kv_bad_key", "{\"op\":\"get\",\"ns\":\"a\",\"key\":{\"k\":1}}"),
                arguments("kv_bad_key", "{\"op\":\"get\",\"ns\":\"a\",\"key\":[\"k\"]}"),
                arguments("kv_bad_key", "{\"op\":\"put\",\"ns\":\"a\",\"value\":1,\"forever\":true}"),
                arguments("kv_bad_key", "{\"op\":\"delete\",\"ns\":\"a\",\"key\":null}"),
                arguments("kv_bad_key", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"\",\"delta\":1,\"forever\":true}"),
                arguments("kv_bad_key", "{\"op\":\"check\",\"ns\":\"a\",\"expect\":0}"),
                arguments("kv_bad_key", "{\"op\":\"getMany\",\"ns\":\"a\",\"keys\":[\"ok\",null]}"),
                arguments("kv_bad_key", "{\"op\":\"getMany\",\"ns\":\"a\",\"keys\":[\"ok\",\"\"]}"),
                arguments("kv_bad_key", "{\"op\":\"getMany\",\"ns\":\"a\",\"keys\":[\"\\u0000\"]}"),
                // kv_prefix_required
                arguments("kv_prefix_required", "{\"op\":\"getPrefix\",\"ns\":\"a\"}"),
                arguments("kv_prefix_required", "{\"op\":\"getPrefix\",\"ns\":\"a\",\"prefix\":\"\"}"),
                arguments("kv_prefix_required", "{\"op\":\"getPrefix\",\"ns\":\"a\",\"prefix\":null}"),
                // kv_expiry_not_specified
                arguments("kv_expiry_not_specified", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1}"),
                arguments("kv_expiry_not_specified", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":false}"),
                arguments("kv_expiry_not_specified", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"ttlSeconds\":60}"),
                arguments("kv_expiry_not_specified", "{\"op\":\"putIfAbsent\",\"ns\":\"a\",\"key\":\"k\",\"value\":1}"),
                arguments("kv_expiry_not_specified", "{\"op\":\"putIfAbsent\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"ttlSeconds\":5}"),
                arguments("kv_expiry_not_specified", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1}"),
                arguments("kv_expiry_not_specified", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1,\"forever\":false}"),
                arguments("kv_expiry_not_specified", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1,\"forever\":true,\"ttlSeconds\":1}"),
                // kv_bad_ttl
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":null}"),
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":0}"),
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":-1}"),
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":1.5}"),
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":\"60\"}"),
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":true}"),
                arguments("kv_bad_ttl", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":0.0}"),
                arguments("kv_bad_ttl", "{\"op\":\"putIfAbsent\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"ttlSeconds\":-5}"),
                arguments("kv_bad_ttl", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1,\"ttlSeconds\":0.5}"),
                // kv_bad_expect
                arguments("kv_bad_expect", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"expect\":null}"),
                arguments("kv_bad_expect", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"expect\":-1}"),
                arguments("kv_bad_expect", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"expect\":1.5}"),
                arguments("kv_bad_expect", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"expect\":\"3\"}"),
                arguments("kv_bad_expect", "{\"op\":\"delete\",\"ns\":\"a\",\"key\":\"k\",\"expect\":null}"),
                arguments("kv_bad_expect", "{\"op\":\"delete\",\"ns\":\"a\",\"key\":\"k\",\"expect\":-1}"),
                arguments("kv_bad_expect", "{\"op\":\"check\",\"ns\":\"a\",\"key\":\"k\",\"expect\":null}"),
                arguments("kv_bad_expect", "{\"op\":\"check\",\"ns\":\"a\",\"key\":\"k\",\"expect\":1.5}"),
                arguments("kv_bad_expect", "{\"op\":\"check\",\"ns\":\"a\",\"key\":\"k\",\"expect\":\"3\"}"),
                arguments("kv_bad_expect", "{\"op\":\"putIfAbsent\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"expect\":null}"),
                // kv_bad_request: fields of the wrong type or shape the table does not name
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":null,\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":\"1\",\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1,\"min\":\"0\",\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1,\"max\":true,\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1,\"min\":null,\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1,\"forever\":true,\"expect\":0}"),
                arguments("kv_bad_request", "{\"op\":\"incr\",\"ns\":\"a\",\"key\":\"k\",\"delta\":1,\"forever\":true,\"expect\":3}"),
                arguments("kv_bad_request", "{\"op\":\"putIfAbsent\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"expect\":1}"),
                arguments("kv_bad_request", "{\"op\":\"check\",\"ns\":\"a\",\"key\":\"k\"}"),
                arguments("kv_bad_request", "{\"op\":\"get\",\"ns\":\"a\",\"key\":\"k\",\"required\":\"true\"}"),
                arguments("kv_bad_request", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"required\":1}"),
                arguments("kv_bad_request", "{\"op\":\"delete\",\"ns\":\"a\",\"key\":\"k\",\"required\":null}"),
                arguments("kv_bad_request", "{\"op\":\"getPrefix\",\"ns\":\"a\",\"prefix\":\"p\",\"keysOnly\":\"yes\"}"),
                arguments("kv_bad_request", "{\"op\":\"getPrefix\",\"ns\":\"a\",\"prefix\":\"p\",\"keysOnly\":1}"),
                arguments("kv_bad_request", "{\"op\":\"getPrefix\",\"ns\":\"a\",\"prefix\":\"p\",\"limit\":1.5}"),
                arguments("kv_bad_request", "{\"op\":\"getPrefix\",\"ns\":\"a\",\"prefix\":\"p\",\"limit\":\"10\"}"),
                arguments("kv_bad_request", "{\"op\":\"getPrefix\",\"ns\":\"a\",\"prefix\":\"p\",\"limit\":null}"),
                arguments("kv_bad_request", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"forever\":true}"),
                arguments("kv_bad_request", "{\"op\":\"getMany\",\"ns\":\"a\"}"),
                arguments("kv_bad_request", "{\"op\":\"getMany\",\"ns\":\"a\",\"keys\":\"k\"}"),
                // kv_tenant_not_an_input
                arguments("kv_tenant_not_an_input", "{\"op\":\"get\",\"ns\":\"a\",\"key\":\"k\",\"tenant\":\"t\"}"),
                arguments("kv_tenant_not_an_input", "{\"op\":\"get\",\"ns\":\"a\",\"key\":\"k\",\"tenantId\":\"t\"}"),
                arguments("kv_tenant_not_an_input", "{\"op\":\"get\",\"ns\":\"a\",\"key\":\"k\",\"_tenant\":\"t\"}"),
                arguments("kv_tenant_not_an_input", "{\"op\":\"put\",\"ns\":\"a\",\"key\":\"k\",\"value\":1,\"forever\":true,\"tenant\":null}"),
                arguments("kv_tenant_not_an_input", "{\"op\":\"getPrefix\",\"ns\":\"a\",\"prefix\":\"p\",\"tenantId\":\"00000000-0000-0000-0000-000000000001\"}"));
    }

    @ParameterizedTest(name = "[{index}] {0}: {1}")
    @MethodSource("badOps")
    void aBadOpRefusesTheWholeCallAndNamesItsIndex(String reason, String badOp) {
        String witness = "witness-" + SEQ.incrementAndGet();
        HttpResponse<String> r = batch(node, "{\"operations\":[" + put(NS, witness, "1") + "," + get(NS, "x") + ","
                + get(NS, "y") + "," + badOp + "]}");
        badRequestAt(r, reason, 3);
        assertAbsent(witness);
    }

    @Test
    void theFirstBadOpIsTheOneNamed() {
        HttpResponse<String> r = batch(node, "[" + get(NS, "a") + ",{\"op\":\"nope\",\"ns\":\"a\",\"key\":\"k\"},"
                + "{\"op\":\"get\",\"ns\":\"BAD\",\"key\":\"k\"}]");
        badRequestAt(r, "kv_unknown_op", 1);
    }

    // ---- key and value sizes: 413

    @Test
    void aKeyOf512Utf8BytesIsAcceptedAnd513IsRefusedWith413() {
        String key512 = "€".repeat(170) + "ab"; // 170 × 3 + 2 = 512 bytes
        JsonNode results = ok(node, put(NS, key512, "1"));
        assertThat(results.get(0).get("applied").asBoolean()).isTrue();
        assertThat(results.get(0).get("key").asText()).isEqualTo(key512);

        String key513 = "€".repeat(171); // 513 bytes, 171 chars
        String witness = "witness-" + SEQ.incrementAndGet();
        JsonNode body = refused(batch(node, "[" + put(NS, witness, "1") + "," + put(NS, key513, "1") + "]"),
                413, "payload_too_large", "kv_key_too_large");
        assertThat(body.get("detail").asText()).startsWith("op at index 1: ");
        assertAbsent(witness);

        refused(batch(node, "[" + get(NS, key513) + "]"), 413, "payload_too_large", "kv_key_too_large");
        refused(batch(node, "[{\"op\":\"getMany\",\"ns\":\"a\",\"keys\":[\"k\"," + str(key513) + "]}]"),
                413, "payload_too_large", "kv_key_too_large");
    }

    @Test
    void aValueOf65536CompactBytesIsAcceptedAnd65537IsRefusedWith413() {
        // A string value: two quotes + n characters of compact JSON.
        JsonNode results = ok(node, put(NS, "v-max", "\"" + "a".repeat(65_534) + "\""));
        assertThat(results.get(0).get("applied").asBoolean()).isTrue();
        assertThat(results.get(0).get("value").asText()).hasSize(65_534);

        String witness = "witness-" + SEQ.incrementAndGet();
        JsonNode body = refused(batch(node, "[" + put(NS, witness, "1") + "," + get(NS, "x") + ","
                        + put(NS, "v-over", "\"" + "a".repeat(65_535) + "\"") + "]"),
                413, "payload_too_large", "kv_value_too_large");
        assertThat(body.get("detail").asText()).startsWith("op at index 2: ");
        assertAbsent(witness);
        assertAbsent("v-over");
    }

    @Test
    void theValueIsMeasuredAsCompactJsonNotAsSent() {
        // ["aaa…"] compact is 4 + n bytes; sent with whitespace it is longer but still fits.
        String padded = "[   " + "\"" + "a".repeat(65_532) + "\"" + "   ]";
        JsonNode results = ok(node, "{\"op\":\"put\",\"ns\":\"" + NS + "\",\"key\":\"v-compact\",\"value\":" + padded + ",\"forever\":true}");
        assertThat(results.get(0).get("applied").asBoolean()).isTrue();
        String over = "[   " + "\"" + "a".repeat(65_533) + "\"" + "   ]";
        refused(batch(node, "[{\"op\":\"put\",\"ns\":\"" + NS + "\",\"key\":\"v-compact2\",\"value\":" + over + ",\"forever\":true}]"),
                413, "payload_too_large", "kv_value_too_large");
        // putIfAbsent is held to the same limit
        refused(batch(node, "[{\"op\":\"putIfAbsent\",\"ns\":\"" + NS + "\",\"key\":\"v-compact3\",\"value\":" + over + ",\"forever\":true}]"),
                413, "payload_too_large", "kv_value_too_large");
    }

    // ---- whole-call limits at their defaults

    @Test
    void aCallOf256OpsIsAcceptedAnd257IsRefused() {
        String ops256 = IntStream.range(0, 256).mapToObj(i -> get(NS, "g" + i)).collect(Collectors.joining(","));
        HttpResponse<String> r = batch(node, "[" + ops256 + "]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r).get("results").size()).isEqualTo(256);

        String witness = "witness-" + SEQ.incrementAndGet();
        String ops257 = put(NS, witness, "1") + "," + IntStream.range(0, 256).mapToObj(i -> get(NS, "g" + i)).collect(Collectors.joining(","));
        badRequest(batch(node, "{\"operations\":[" + ops257 + "]}"), "kv_too_many_ops");
        assertAbsent(witness);
    }

    @Test
    void aFullCallOf256OpsEachAtTheValueLimitIsAccepted() {
        String value = "\"" + "v".repeat(65_534) + "\"";
        String ops = IntStream.range(0, 256).mapToObj(i -> put("fullcall", "k" + i, value)).collect(Collectors.joining(","));
        String body = "{\"operations\":[" + ops + "]}";
        assertThat((long) body.length()).isGreaterThan(256L * 65_536).isLessThan(32L * 1024 * 1024);
        HttpResponse<String> r = batch(node, body);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode results = json(r).get("results");
        assertThat(results.size()).isEqualTo(256);
        for (JsonNode e : results) assertThat(e.get("applied").asBoolean()).isTrue();
    }

    /**
     * A body declared over the limit is refused from its length, before any of it is read. Only the
     * head is sent, over a raw socket: a client still uploading 32 MiB when the 413 comes may read a
     * reset instead of the answer (TCP drops what it had received), which says nothing of the node.
     */
    @Test
    void aBodyOverTheDefault32MiBIsRefusedWith413() {
        byte[] head = RawHttp.request(java.net.URI.create(node.baseUrl).getAuthority(), "POST", "/api/v1/kv",
                Map.of("Content-Type", "application/json", "Content-Length", Integer.toString(32 * 1024 * 1024 + 1)), null);

        RawHttp.Answer answer = RawHttp.exchange(node.baseUrl, head, java.time.Duration.ofSeconds(30));

        assertThat(answer.status()).isEqualTo(413);
        assertThat(answer.body()).contains("\"error\":\"payload_too_large\"").contains("\"reason\":\"payload_too_large\"");
    }

    @Test
    void getManyCountsItsKeysAgainstTheKeyLimit() {
        String keys1024 = IntStream.range(0, 1024).mapToObj(i -> "\"m" + i + "\"").collect(Collectors.joining(","));
        JsonNode results = ok(node, "{\"op\":\"getMany\",\"ns\":\"" + NS + "\",\"keys\":[" + keys1024 + "]}");
        assertThat(results.get(0).get("missing").size()).isEqualTo(1024);

        // 1 (get) + 1024 = 1025 keys: the getMany at index 1 crosses the limit
        badRequestAt(batch(node, "[" + get(NS, "x") + ",{\"op\":\"getMany\",\"ns\":\"" + NS + "\",\"keys\":[" + keys1024 + "]}]"),
                "kv_too_many_keys", 1);
        // duplicates count too
        String dup1025 = IntStream.range(0, 1025).mapToObj(i -> "\"same\"").collect(Collectors.joining(","));
        badRequestAt(batch(node, "[{\"op\":\"getMany\",\"ns\":\"" + NS + "\",\"keys\":[" + dup1025 + "]}]"), "kv_too_many_keys", 0);
    }

    @Test
    void getPrefixCountsItsClampedLimitAgainstTheKeyLimit() {
        // limit 5000 is clamped to 1000: alone it fits
        ok(node, "{\"op\":\"getPrefix\",\"ns\":\"" + NS + "\",\"prefix\":\"p\",\"limit\":5000}");
        // limit 0 and -7 are clamped to 1
        ok(node, "{\"op\":\"getPrefix\",\"ns\":\"" + NS + "\",\"prefix\":\"p\",\"limit\":0}",
                "{\"op\":\"getPrefix\",\"ns\":\"" + NS + "\",\"prefix\":\"p\",\"limit\":-7}");
        // 1000 + 24 gets = 1024 fits; one more get crosses it
        List<String> ops = new ArrayList<>();
        ops.add("{\"op\":\"getPrefix\",\"ns\":\"" + NS + "\",\"prefix\":\"p\",\"limit\":5000}");
        for (int i = 0; i < 24; i++) ops.add(get(NS, "g" + i));
        ok(node, ops.toArray(String[]::new));
        ops.add(get(NS, "g-last"));
        badRequestAt(batch(node, "[" + String.join(",", ops) + "]"), "kv_too_many_keys", 25);
        // the default limit is 100: eleven getPrefix ops reach 1100
        String eleven = IntStream.range(0, 11).mapToObj(i -> "{\"op\":\"getPrefix\",\"ns\":\"" + NS + "\",\"prefix\":\"p" + i + "\"}")
                .collect(Collectors.joining(","));
        badRequestAt(batch(node, "[" + eleven + "]"), "kv_too_many_keys", 10);
        // 1000 + 1000
        badRequestAt(batch(node, "[{\"op\":\"getPrefix\",\"ns\":\"" + NS + "\",\"prefix\":\"p\",\"limit\":1000},"
                + "{\"op\":\"getPrefix\",\"ns\":\"" + NS + "\",\"prefix\":\"q\",\"limit\":1000}]"), "kv_too_many_keys", 1);
    }

    @Test
    void twoWritesOnOneKeyInACallAreRefused() {
        String witness = "witness-" + SEQ.incrementAndGet();
        badRequestAt(batch(node, "[" + put(NS, witness, "1") + "," + put(NS, "dup", "1") + ","
                + "{\"op\":\"delete\",\"ns\":\"" + NS + "\",\"key\":\"dup\"}]"), "kv_duplicate_key_in_call", 2);
        assertAbsent(witness);
        badRequestAt(batch(node, "[{\"op\":\"check\",\"ns\":\"" + NS + "\",\"key\":\"dup\",\"expect\":0},"
                + "{\"op\":\"incr\",\"ns\":\"" + NS + "\",\"key\":\"dup\",\"delta\":1,\"forever\":true}]"), "kv_duplicate_key_in_call", 1);
        badRequestAt(batch(node, "[{\"op\":\"putIfAbsent\",\"ns\":\"" + NS + "\",\"key\":\"dup\",\"value\":1,\"forever\":true},"
                + "{\"op\":\"check\",\"ns\":\"" + NS + "\",\"key\":\"dup\",\"expect\":0}]"), "kv_duplicate_key_in_call", 1);
        // "key":5 and "key":"5" are the same key
        badRequestAt(batch(node, "[{\"op\":\"put\",\"ns\":\"" + NS + "\",\"key\":5,\"value\":1,\"forever\":true},"
                + put(NS, "5", "2") + "]"), "kv_duplicate_key_in_call", 1);

        // reads of a written key, and writes of one key in two namespaces, are fine
        JsonNode results = ok(node, get(NS, "dup2"), put(NS, "dup2", "1"), get(NS, "dup2"), put(NS + "-other", "dup2", "2"));
        assertThat(results.get(0).get("found").asBoolean()).isFalse();
        assertThat(results.get(2).get("found").asBoolean()).isTrue();
    }

    @Test
    void anAbsentKeyIsNever404() {
        JsonNode results = ok(node, get(NS, "never-written"));
        assertThat(results.get(0).get("found").asBoolean()).isFalse();
        HttpResponse<String> r = node.get("/api/v1/kv/" + NS + "/never-written");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).get("found").asBoolean()).isFalse();
        HttpResponse<String> d = node.http("DELETE", "/api/v1/kv/" + NS + "/never-written", null, Map.of());
        assertThat(d.statusCode()).isEqualTo(200);
        assertThat(json(d).get("reason").asText()).isEqualTo("absent");
    }

    @Test
    void anUnknownPathIsAJson404() {
        HttpResponse<String> r = node.get("/api/v1/nothing-here");
        refused(r, 404, "not_found", "not_found");
    }

    private static void assertAbsent(String key) {
        JsonNode results = ok(node, get(NS, key));
        assertThat(results.get(0).get("found").asBoolean()).as("key %s must not have been written", key).isFalse();
    }
}
