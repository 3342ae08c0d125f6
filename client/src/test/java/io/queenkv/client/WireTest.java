package io.queenkv.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class WireTest {
    record Order(String status, int items) {}

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);
    private final ObjectMapper mapper = new ObjectMapper();
    private final Wire wire = new Wire(mapper);

    private String json(Op op) {
        return wire.opJson(op, CLOCK).toString();
    }

    @Test
    void readOps() {
        assertThat(json(Op.get("orders", "9137"))).isEqualTo("{\"op\":\"get\",\"ns\":\"orders\",\"key\":\"9137\"}");
        assertThat(json(Op.getMany("orders", "b", "a", "b")))
                .isEqualTo("{\"op\":\"getMany\",\"ns\":\"orders\",\"keys\":[\"b\",\"a\",\"b\"]}");
        assertThat(json(Op.getPrefix("orders", "o:")))
                .isEqualTo("{\"op\":\"getPrefix\",\"ns\":\"orders\",\"prefix\":\"o:\"}");
        assertThat(json(Op.getPrefix("orders", "o:").after("o:5").limit(10).keysOnly(true)))
                .isEqualTo("{\"op\":\"getPrefix\",\"ns\":\"orders\",\"prefix\":\"o:\",\"after\":\"o:5\",\"limit\":10,\"keysOnly\":true}");
    }

    @Test
    void writeOps() {
        assertThat(json(Op.put("orders", "9137", new Order("paid", 2), Lifetime.ttl("30d"))))
                .isEqualTo("{\"op\":\"put\",\"ns\":\"orders\",\"key\":\"9137\",\"value\":{\"status\":\"paid\",\"items\":2},\"ttlSeconds\":2592000}");
        assertThat(json(Op.put("orders", "9137", null, Lifetime.forever()).expect(4).asRequired()))
                .isEqualTo("{\"op\":\"put\",\"ns\":\"orders\",\"key\":\"9137\",\"value\":null,\"forever\":true,\"expect\":4,\"required\":true}");
        assertThat(json(Op.putIfAbsent("locks", "job-1", "me", Lifetime.until(CLOCK.instant().plusMillis(1500)))))
                .isEqualTo("{\"op\":\"putIfAbsent\",\"ns\":\"locks\",\"key\":\"job-1\",\"value\":\"me\",\"ttlSeconds\":2}");
        assertThat(json(Op.delete("orders", "9137")))
                .isEqualTo("{\"op\":\"delete\",\"ns\":\"orders\",\"key\":\"9137\"}");
        assertThat(json(Op.delete("orders", "9137").expect(0).asRequired()))
                .isEqualTo("{\"op\":\"delete\",\"ns\":\"orders\",\"key\":\"9137\",\"expect\":0,\"required\":true}");
        assertThat(json(Op.incr("limits", "api:42", 1, Lifetime.ttl("2m")).min(0).max(100)))
                .isEqualTo("{\"op\":\"incr\",\"ns\":\"limits\",\"key\":\"api:42\",\"delta\":1,\"min\":0,\"max\":100,\"ttlSeconds\":120}");
        assertThat(json(Op.incr("money", "acct", new BigDecimal("-0.10"), Lifetime.forever())))
                .isEqualTo("{\"op\":\"incr\",\"ns\":\"money\",\"key\":\"acct\",\"delta\":-0.1,\"forever\":true}");
        assertThat(json(Op.check("orders", "9137", 7).asRequired()))
                .isEqualTo("{\"op\":\"check\",\"ns\":\"orders\",\"key\":\"9137\",\"expect\":7,\"required\":true}");
    }

    @Test
    void jsonNodeValuesPassThrough() throws Exception {
        JsonNode value = mapper.readTree("{\"a\":[1,2.50,null]}");
        assertThat(json(Op.put("n", "k", value, Lifetime.ttlSeconds(5))))
                .isEqualTo("{\"op\":\"put\",\"ns\":\"n\",\"key\":\"k\",\"value\":{\"a\":[1,2.5,null]},\"ttlSeconds\":5}");
    }

    @Test
    void aWriteWithoutALifetimeIsRefusedBeforeSending() {
        assertThatThrownBy(() -> Op.put("n", "k", 1, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lifetime");
        assertThatThrownBy(() -> Op.putIfAbsent("n", "k", 1, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Op.incr("n", "k", 1, null)).isInstanceOf(IllegalArgumentException.class);
        Op past = Op.put("n", "k", 1, Lifetime.until(CLOCK.instant().minusSeconds(5)));
        assertThatThrownBy(() -> wire.callBody(List.of(past), CLOCK)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Op.put("n", "k", 1, Lifetime.forever()).expect(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Op.getPrefix("n", "")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void callBody() {
        byte[] body = wire.callBody(List.of(Op.get("a", "b"), Op.delete("a", "c")), CLOCK);
        assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo(
                "{\"operations\":[{\"op\":\"get\",\"ns\":\"a\",\"key\":\"b\"},{\"op\":\"delete\",\"ns\":\"a\",\"key\":\"c\"}]}");
    }

    private BatchResult parse(String body, List<Op> ops, Class<?>... types) throws Exception {
        List<Class<?>> t = types.length == 0 ? QueenKvAsync.nullTypes(ops.size()) : Arrays.asList(types);
        return wire.call(wire.parse(body.getBytes(StandardCharsets.UTF_8)), ops, t);
    }

    @Test
    void parsesTheQuickstartAnswer() throws Exception {
        String body = """
                {"results":[{"index":0,"op":"put","applied":true,"key":"9137","value":{"status":"paid","items":1},"version":1},
                {"index":1,"op":"get","found":true,"key":"9137","value":{"status":"paid","items":1},"version":1,
                 "expiresAt":"2026-12-30T10:15:30.1234+00:00","updatedAt":"2026-11-30T10:15:30.1234+00:00"},
                {"index":2,"op":"get","found":false,"key":"nope"},
                {"index":3,"op":"get","found":true,"key":"f","value":null,"version":9,"expiresAt":null,"updatedAt":"2026-11-30T10:15:30+00:00"}]}""";
        BatchResult r = parse(body, List.of(Op.put("orders", "9137", 1, Lifetime.forever()), Op.get("orders", "9137"),
                Op.get("orders", "nope"), Op.get("orders", "f")), null, Order.class, Order.class, Order.class);
        assertThat(r).isInstanceOf(BatchResult.Completed.class);
        BatchResult.Completed done = (BatchResult.Completed) r;
        WriteResult put = done.write(0);
        assertThat(put.applied()).isTrue();
        assertThat(put.reason()).isNull();
        assertThat(put.version()).isEqualTo(1);
        assertThat(put.value(Order.class)).isEqualTo(new Order("paid", 1));
        GetResult<Order> get = done.get(1);
        assertThat(get.found()).isTrue();
        assertThat(get.value()).isEqualTo(new Order("paid", 1));
        assertThat(get.expiresAt()).isEqualTo(Instant.parse("2026-12-30T10:15:30.1234Z"));
        assertThat(get.updatedAt()).isEqualTo(Instant.parse("2026-11-30T10:15:30.1234Z"));
        GetResult<Order> absent = done.get(2);
        assertThat(absent.found()).isFalse();
        assertThat(absent.value()).isNull();
        assertThat(absent.row()).isEmpty();
        GetResult<Order> nullValue = done.get(3);
        assertThat(nullValue.found()).isTrue();
        assertThat(nullValue.value()).isNull();
        assertThat(nullValue.expiresAt()).isNull();
        assertThat(nullValue.row().orElseThrow().forever()).isTrue();
    }

    @Test
    void parsesLostWritesWithTheWinner() throws Exception {
        String body = """
                {"results":[{"index":0,"op":"put","applied":false,"reason":"version","key":"9137","value":{"status":"shipped","items":3},"version":2},
                {"index":1,"op":"putIfAbsent","applied":false,"reason":"exists","key":"l","value":"other","version":5},
                {"index":2,"op":"delete","applied":false,"reason":"absent","key":"d","version":0},
                {"index":3,"op":"incr","applied":false,"reason":"limit","key":"c","value":100,"version":8},
                {"index":4,"op":"incr","applied":false,"reason":"type","key":"t","value":"text","version":9},
                {"index":5,"op":"check","applied":true,"key":"x","version":4},
                {"index":6,"op":"incr","applied":true,"key":"m","value":0.3,"version":10}]}""";
        List<Op> ops = List.of(Op.put("o", "9137", 1, Lifetime.forever()), Op.putIfAbsent("o", "l", 1, Lifetime.forever()),
                Op.delete("o", "d"), Op.incr("o", "c", 1, Lifetime.forever()), Op.incr("o", "t", 1, Lifetime.forever()),
                Op.check("o", "x", 4), Op.incr("o", "m", 0.1, Lifetime.forever()));
        BatchResult.Completed done = (BatchResult.Completed) parse(body, ops);
        assertThat(done.write(0).reason()).isEqualTo(WriteReason.VERSION);
        assertThat(done.write(0).value(Order.class)).isEqualTo(new Order("shipped", 3));
        assertThat(done.write(0).version()).isEqualTo(2);
        assertThat(done.write(1).reason()).isEqualTo(WriteReason.EXISTS);
        assertThat(done.write(1).value(String.class)).isEqualTo("other");
        assertThat(done.write(2).reason()).isEqualTo(WriteReason.ABSENT);
        assertThat(done.write(2).value().isNull()).isTrue();
        assertThat(done.write(2).version()).isZero();
        assertThat(done.write(3).reason()).isEqualTo(WriteReason.LIMIT);
        assertThat(done.write(3).longValue()).isEqualTo(100);
        assertThat(done.write(4).reason()).isEqualTo(WriteReason.TYPE);
        assertThat(done.write(5).applied()).isTrue();
        assertThat(done.write(5).version()).isEqualTo(4);
        assertThat(done.write(6).number()).isEqualByComparingTo("0.3");
        assertThat(done.write(6).op()).isEqualTo("incr");
    }

    @Test
    void parsesManyAndPrefix() throws Exception {
        String body = """
                {"results":[{"index":0,"op":"getMany","rows":[{"key":"a","value":{"status":"x","items":1},"version":3,"expiresAt":null,"updatedAt":"2026-11-30T10:00:00+00:00"}],
                  "missing":["z","y"],"truncated":false},
                 {"index":1,"op":"getPrefix","rows":[{"key":"p1","version":1,"expiresAt":"2026-11-30T10:00:01.5+00:00","updatedAt":"2026-11-30T10:00:00+00:00"}],
                  "truncated":true,"nextAfter":"p1"},
                 {"index":2,"op":"getPrefix","rows":[],"truncated":false,"nextAfter":null}]}""";
        BatchResult.Completed done = (BatchResult.Completed) parse(body,
                List.of(Op.getMany("o", "a", "z", "y"), Op.getPrefix("o", "p").keysOnly(true), Op.getPrefix("o", "q")),
                Order.class, null, null);
        GetManyResult<Order> many = done.getMany(0);
        assertThat(many.rows()).containsExactly(new Row<>("a", new Order("x", 1), 3, null, Instant.parse("2026-11-30T10:00:00Z")));
        assertThat(many.missing()).containsExactly("z", "y");
        assertThat(many.byKey()).containsOnlyKeys("a");
        GetPrefixResult<JsonNode> page = done.getPrefix(1);
        assertThat(page.truncated()).isTrue();
        assertThat(page.nextAfter()).isEqualTo("p1");
        assertThat(page.rows().get(0).value()).isNull();
        assertThat(page.rows().get(0).expiresAt()).isEqualTo(Instant.parse("2026-11-30T10:00:01.5Z"));
        GetPrefixResult<JsonNode> empty = done.getPrefix(2);
        assertThat(empty.rows()).isEmpty();
        assertThat(empty.nextAfter()).isNull();
        assertThatThrownBy(() -> done.write(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parsesARequiredAbort() throws Exception {
        String body = "{\"ok\":false,\"reason\":\"kv_precondition\",\"failedIndex\":1,\"kvReason\":\"version\",\"version\":7,\"value\":{\"n\":1}}";
        BatchResult r = parse(body, List.of(Op.get("o", "a"), Op.check("o", "b", 3).asRequired()));
        assertThat(r).isEqualTo(new BatchResult.PreconditionFailed(1, WriteReason.VERSION, 7, mapper.readTree("{\"n\":1}")));
        assertThat(r.completed()).isFalse();
    }

    @Test
    void parsesRefusals() {
        QueenKvRefusedException e = wire.refusal(400,
                "{\"error\":\"kv_bad_request\",\"reason\":\"kv_bad_namespace\",\"detail\":\"op at index 0: bad\"}".getBytes(StandardCharsets.UTF_8), null);
        assertThat(e.status()).isEqualTo(400);
        assertThat(e.error()).isEqualTo("kv_bad_request");
        assertThat(e.reason()).isEqualTo("kv_bad_namespace");
        assertThat(e.detail()).isEqualTo("op at index 0: bad");
        QueenKvRefusedException html = wire.refusal(502, "<html>".getBytes(StandardCharsets.UTF_8), null);
        assertThat(html.reason()).isEqualTo("http_502");
        assertThat(wire.unavailableReason(503, "{\"error\":\"kv_unavailable\",\"reason\":\"kv_no_leader\"}".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("kv_no_leader");
    }

    @Test
    void decimalsStayExact() throws Exception {
        JsonNode n = wire.parse("{\"v\":0.30000000000000000001}".getBytes(StandardCharsets.UTF_8));
        assertThat(n.get("v").decimalValue()).isEqualByComparingTo("0.30000000000000000001");
    }
}
