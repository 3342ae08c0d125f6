package io.queenkv.cli;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queenkv.client.BatchResult;
import io.queenkv.client.GetManyResult;
import io.queenkv.client.GetPrefixResult;
import io.queenkv.client.GetResult;
import io.queenkv.client.Op;
import io.queenkv.client.OpResult;
import io.queenkv.client.Row;
import io.queenkv.client.WriteResult;

/**
 * The SDK's results written back in the node's shapes (API.md §1): the elements of
 * {@code {"results":[…]}}, the {@code ok:false} body of a required abort, RFC 3339 timestamps with
 * microseconds. {@code -o json} prints these, so its output reads like the HTTP API's.
 */
final class ResultJson {
    private ResultJson() {}

    static ObjectNode batch(List<Op> ops, BatchResult result) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        if (result instanceof BatchResult.PreconditionFailed failed) {
            body.put("ok", false);
            body.put("reason", "kv_precondition");
            body.put("failedIndex", failed.failedIndex());
            body.put("kvReason", failed.kvReason().wire());
            body.put("version", failed.version());
            body.set("value", failed.value());
            return body;
        }
        ArrayNode results = body.putArray("results");
        List<OpResult> done = ((BatchResult.Completed) result).results();
        for (int i = 0; i < done.size(); i++) results.add(element(i, ops.get(i).name(), done.get(i)));
        return body;
    }

    @SuppressWarnings("unchecked")
    static ObjectNode element(int index, String op, OpResult result) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        e.put("index", index);
        e.put("op", op);
        if (result instanceof GetResult<?> get) {
            GetResult<JsonNode> g = (GetResult<JsonNode>) get;
            e.put("found", g.found());
            e.put("key", g.key());
            g.row().ifPresent(row -> rowFields(e, row));
        } else if (result instanceof GetManyResult<?> many) {
            rows(e, ((GetManyResult<JsonNode>) many).rows());
            ArrayNode missing = e.putArray("missing");
            many.missing().forEach(missing::add);
            e.put("truncated", many.truncated());
        } else if (result instanceof GetPrefixResult<?> prefix) {
            rows(e, ((GetPrefixResult<JsonNode>) prefix).rows());
            e.put("truncated", prefix.truncated());
            e.put("nextAfter", prefix.nextAfter());
        } else if (result instanceof WriteResult w) {
            e.put("applied", w.applied());
            if (!w.applied()) e.put("reason", w.reason().wire());
            e.put("key", w.key());
            // An applied check writes nothing and answers no value.
            if (!(w.applied() && "check".equals(op))) e.set("value", w.value());
            e.put("version", w.version());
        }
        return e;
    }

    /** {@code {"rows":[…],"truncated":…,"nextAfter":…}}: a listing of one or many pages. */
    static ObjectNode page(List<Row<JsonNode>> rows, boolean truncated, String nextAfter) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        rows(e, rows);
        e.put("truncated", truncated);
        e.put("nextAfter", nextAfter);
        return e;
    }

    private static void rows(ObjectNode e, List<Row<JsonNode>> rows) {
        ArrayNode array = e.putArray("rows");
        for (Row<JsonNode> row : rows) {
            ObjectNode r = array.addObject();
            r.put("key", row.key());
            rowFields(r, row);
        }
    }

    /** value (left out for a keys-only row, whose value is null; a stored JSON null is a NullNode), version, times. */
    private static void rowFields(ObjectNode o, Row<JsonNode> row) {
        if (row.value() != null) o.set("value", row.value());
        o.put("version", row.version());
        o.put("expiresAt", row.expiresAt() == null ? null : timestamp(row.expiresAt()));
        o.put("updatedAt", timestamp(row.updatedAt()));
    }

    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ISO_LOCAL_DATE_TIME;

    /** As the node writes instants: UTC, microseconds with trailing zeros trimmed, {@code +00:00}. */
    static String timestamp(Instant instant) {
        if (instant == null) return null;
        return LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC).format(LOCAL) + "+00:00";
    }
}
