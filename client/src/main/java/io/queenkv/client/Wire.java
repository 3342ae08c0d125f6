package io.queenkv.client;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** JSON ⇄ ops and results, in the shapes of API.md. Pure: no I/O, the clock is given. */
final class Wire {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ObjectMapper mapper;
    private final ObjectReader reader;

    Wire(ObjectMapper mapper) {
        this.mapper = mapper;
        // Numbers keep their exact decimal text (an incr of 0.1 + 0.2 reads back as 0.3).
        this.reader = mapper.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    }

    ObjectMapper mapper() {
        return mapper;
    }

    // ---- requests --------------------------------------------------------------------------------

    /** {@code {"operations":[…]}}; an {@link Lifetime.Until} is turned into seconds at {@code clock}'s now. */
    byte[] callBody(List<? extends Op> ops, Clock clock) {
        ObjectNode body = F.objectNode();
        ArrayNode array = body.putArray("operations");
        for (Op op : ops) array.add(opJson(op, clock));
        try {
            return mapper.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new QueenKvException("could not write the call as JSON: " + e.getOriginalMessage(), e);
        }
    }

    ObjectNode opJson(Op op, Clock clock) {
        ObjectNode o = F.objectNode();
        o.put("op", op.name());
        o.put("ns", op.ns());
        if (op instanceof Op.Get get) {
            o.put("key", get.key());
        } else if (op instanceof Op.GetMany many) {
            ArrayNode keys = o.putArray("keys");
            many.keys().forEach(keys::add);
        } else if (op instanceof Op.GetPrefix p) {
            o.put("prefix", p.prefix());
            if (p.after() != null) o.put("after", p.after());
            if (p.limit() != null) o.put("limit", p.limit());
            if (p.keysOnly()) o.put("keysOnly", true);
        } else if (op instanceof Op.Put put) {
            o.put("key", put.key());
            o.set("value", valueTree(put.value(), put.key()));
            expiry(o, put.lifetime(), clock);
            if (put.expect() != null) o.put("expect", put.expect());
            if (put.required()) o.put("required", true);
        } else if (op instanceof Op.PutIfAbsent put) {
            o.put("key", put.key());
            o.set("value", valueTree(put.value(), put.key()));
            expiry(o, put.lifetime(), clock);
            if (put.required()) o.put("required", true);
        } else if (op instanceof Op.Delete del) {
            o.put("key", del.key());
            if (del.expect() != null) o.put("expect", del.expect());
            if (del.required()) o.put("required", true);
        } else if (op instanceof Op.Incr incr) {
            o.put("key", incr.key());
            o.set("delta", mapper.valueToTree(incr.delta()));
            if (incr.min() != null) o.set("min", mapper.valueToTree(incr.min()));
            if (incr.max() != null) o.set("max", mapper.valueToTree(incr.max()));
            expiry(o, incr.lifetime(), clock);
            if (incr.required()) o.put("required", true);
        } else if (op instanceof Op.Check check) {
            o.put("key", check.key());
            o.put("expect", check.expect());
            if (check.required()) o.put("required", true);
        }
        return o;
    }

    private JsonNode valueTree(Object value, String key) {
        try {
            JsonNode tree = mapper.valueToTree(value);
            return tree == null ? F.nullNode() : tree;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the value for key " + key + " cannot be written as JSON: " + e.getMessage(), e);
        }
    }

    private static void expiry(ObjectNode o, Lifetime lifetime, Clock clock) {
        long seconds = lifetime.ttlSecondsAt(clock);
        if (seconds < 0) o.put("forever", true);
        else o.put("ttlSeconds", seconds);
    }

    // ---- answers ----------------------------------------------------------------------------------

    JsonNode parse(byte[] body) throws IOException {
        return reader.readTree(body);
    }

    /**
     * A 200 answer of the batch route: {@code {"results":[…]}} or the {@code ok:false} body of a
     * required abort. {@code types.get(i)} is the value type asked for by read op {@code i}.
     */
    BatchResult call(JsonNode body, List<? extends Op> ops, List<Class<?>> types) {
        if (body.path("ok").isBoolean() && !body.get("ok").asBoolean()) {
            return new BatchResult.PreconditionFailed(body.path("failedIndex").asInt(-1),
                    WriteReason.fromWire(body.path("kvReason").asText()), body.path("version").asLong(), body.get("value"));
        }
        JsonNode results = body.get("results");
        if (results == null || !results.isArray() || results.size() != ops.size())
            throw new QueenKvException("unexpected answer from the node (expected " + ops.size() + " results): " + abbreviate(body));
        List<OpResult> out = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) out.add(result(results.get(i), ops.get(i), types.get(i)));
        return new BatchResult.Completed(out);
    }

    OpResult result(JsonNode e, Op op, Class<?> type) {
        Class<?> valueType = type == null ? JsonNode.class : type;
        if (op instanceof Op.Get) {
            boolean found = e.path("found").asBoolean(false);
            String key = e.path("key").asText(((Op.Get) op).key());
            if (!found) return new GetResult<>(key, false, null, 0, null, null);
            return new GetResult<>(key, true, value(e.get("value"), valueType, key), e.path("version").asLong(),
                    instant(e.get("expiresAt")), instant(e.get("updatedAt")));
        }
        if (op instanceof Op.GetMany) {
            List<String> missing = new ArrayList<>();
            e.path("missing").forEach(k -> missing.add(k.asText()));
            return new GetManyResult<>(rows(e.path("rows"), valueType), missing, e.path("truncated").asBoolean(false));
        }
        if (op instanceof Op.GetPrefix) {
            JsonNode next = e.get("nextAfter");
            return new GetPrefixResult<>(rows(e.path("rows"), valueType), e.path("truncated").asBoolean(false),
                    next == null || next.isNull() ? null : next.asText());
        }
        return write(e, op.name());
    }

    static WriteResult write(JsonNode e, String opName) {
        boolean applied = e.path("applied").asBoolean(false);
        JsonNode reason = e.get("reason");
        return new WriteResult(e.path("op").asText(opName), e.path("key").asText(null), applied,
                applied || reason == null || reason.isNull() ? null : WriteReason.fromWire(reason.asText()),
                e.get("value"), e.path("version").asLong());
    }

    private <T> List<Row<T>> rows(JsonNode rows, Class<T> type) {
        List<Row<T>> out = new ArrayList<>(rows.size());
        for (JsonNode r : rows) {
            String key = r.path("key").asText();
            out.add(new Row<>(key, value(r.get("value"), type, key), r.path("version").asLong(),
                    instant(r.get("expiresAt")), instant(r.get("updatedAt"))));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    <T> T value(JsonNode node, Class<T> type, String key) {
        if (node == null || node.isMissingNode()) return null;
        if (type == JsonNode.class || type == Object.class && node.isNull()) return (T) node;
        try {
            return mapper.treeToValue(node, type);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new QueenKvException("the value of key " + key + " does not map to " + type.getName() + ": " + e.getMessage(), e);
        }
    }

    /** An RFC 3339 timestamp ({@code 2026-09-22T10:15:30.1234+00:00}); null stays null. */
    static Instant instant(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) return null;
        try {
            return OffsetDateTime.parse(node.asText()).toInstant();
        } catch (DateTimeParseException e) {
            throw new QueenKvException("unexpected timestamp from the node: " + node.asText(), e);
        }
    }

    /** {@code {"error","reason","detail"}} of a refusal; tolerant of a body that is not JSON. */
    QueenKvRefusedException refusal(int status, byte[] body, java.time.Duration retryAfter) {
        String error = "http_" + status, reason = error, detail = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        try {
            JsonNode json = reader.readTree(body);
            if (json != null && json.isObject()) {
                error = json.path("error").asText(error);
                reason = json.path("reason").asText(reason);
                detail = json.path("detail").asText("");
            }
        } catch (IOException ignored) {
            // keep the raw text as the detail
        }
        return new QueenKvRefusedException(status, error, reason, detail, retryAfter);
    }

    /** The reason of a 503 body, or {@code http_<status>}. */
    String unavailableReason(int status, byte[] body) {
        try {
            JsonNode json = reader.readTree(body);
            if (json != null && json.path("reason").isTextual()) return json.get("reason").asText();
        } catch (IOException ignored) {
            // not JSON
        }
        return "http_" + status;
    }

    private static String abbreviate(JsonNode node) {
        String s = String.valueOf(node);
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }
}
