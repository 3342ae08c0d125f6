package io.queenkv.cli;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.client.Lifetime;
import io.queenkv.client.Op;

/**
 * A batch file: the body of {@code POST /api/v1/kv} ({@code {"operations":[…]}} or a bare array of
 * ops, API.md §1), read into the SDK's ops so the call goes through the SDK (retries, failover, an
 * Idempotency-Key). Each op's shape is checked here, naming the op's index; what the node checks
 * (namespaces, key sizes, limits, duplicates) is left to the node.
 */
final class BatchFile {
    private BatchFile() {}

    static List<Op> ops(JsonNode body) {
        JsonNode array = body.isObject() ? body.get("operations") : body;
        if (body.isObject() && body.size() != 1 || array == null || !array.isArray())
            throw CliFailure.usage("a batch is a JSON array of ops, or {\"operations\":[…]}");
        List<Op> ops = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) ops.add(op(i, array.get(i)));
        return ops;
    }

    private static Op op(int index, JsonNode o) {
        OpReader r = new OpReader(index, o);
        String name = r.text("op");
        String ns = r.text("ns");
        return switch (name) {
            case "get" -> {
                r.only("key");
                yield Op.get(ns, r.key("key"));
            }
            case "getMany" -> {
                r.only("keys");
                JsonNode keys = r.required("keys");
                if (!keys.isArray()) throw r.bad("keys must be an array of keys");
                List<String> list = new ArrayList<>();
                for (JsonNode k : keys) list.add(r.keyText(k, "keys[" + list.size() + "]"));
                yield Op.getMany(ns, list);
            }
            case "getPrefix" -> {
                r.only("prefix", "after", "limit", "keysOnly");
                String prefix = r.key("prefix");
                if (prefix.isEmpty()) throw r.bad("prefix must not be empty");
                Op.GetPrefix p = Op.getPrefix(ns, prefix);
                JsonNode after = o.get("after");
                if (after != null && !after.isNull()) p = p.after(r.keyText(after, "after"));
                // The node clamps a limit to 1..1000 (API.md §1); so does this, as the SDK takes only positive ones.
                if (o.has("limit")) p = p.limit((int) Math.max(1, Math.min(1000, r.integer("limit", Integer.MIN_VALUE, Integer.MAX_VALUE))));
                if (o.has("keysOnly")) p = p.keysOnly(r.bool("keysOnly"));
                yield p;
            }
            case "put" -> {
                r.only("key", "value", "expect", "required", "ttlSeconds", "forever");
                Op.Put put = Op.put(ns, r.key("key"), r.required("value"), r.lifetime());
                if (o.has("expect")) put = put.expect(r.integer("expect", 0, Long.MAX_VALUE));
                yield r.required(put);
            }
            case "putIfAbsent" -> {
                r.only("key", "value", "expect", "required", "ttlSeconds", "forever");
                if (o.has("expect") && r.integer("expect", 0, Long.MAX_VALUE) != 0)
                    throw r.bad("putIfAbsent allows only expect 0 (it is implied)");
                yield r.required(Op.putIfAbsent(ns, r.key("key"), r.required("value"), r.lifetime()));
            }
            case "delete" -> {
                r.only("key", "expect", "required");
                Op.Delete delete = Op.delete(ns, r.key("key"));
                if (o.has("expect")) delete = delete.expect(r.integer("expect", 0, Long.MAX_VALUE));
                yield r.required(delete);
            }
            case "incr" -> {
                r.only("key", "delta", "min", "max", "required", "ttlSeconds", "forever");
                Op.Incr incr = Op.incr(ns, r.key("key"), r.number("delta"), r.lifetime());
                if (o.has("min")) incr = incr.min(r.number("min"));
                if (o.has("max")) incr = incr.max(r.number("max"));
                yield r.required(incr);
            }
            case "check" -> {
                r.only("key", "expect", "required");
                yield r.required(Op.check(ns, r.key("key"), r.integer("expect", 0, Long.MAX_VALUE)));
            }
            default -> throw r.bad("unknown op '" + name + "' (get, getMany, getPrefix, put, putIfAbsent, delete, incr, check)");
        };
    }

    /** Reads the fields of the op at {@code index}; every error names the index. */
    private record OpReader(int index, JsonNode o) {
        OpReader {
            if (!o.isObject()) throw new CliFailure(Exit.USAGE, "batch: op at index " + index + ": an op is a JSON object");
        }

        CliFailure bad(String problem) {
            return CliFailure.usage("batch: op at index " + index + ": " + problem);
        }

        /** Refuses fields other than op, ns and {@code fields}: a misspelt field is an error, not ignored. */
        void only(String... fields) {
            Set<String> allowed = new LinkedHashSet<>(List.of("op", "ns"));
            allowed.addAll(List.of(fields));
            for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!allowed.contains(f)) throw bad("unknown field '" + f + "' for " + o.path("op").asText() + " (fields: " + allowed + ")");
            }
        }

        JsonNode required(String field) {
            JsonNode n = o.get(field);
            if (n == null) throw bad(field + " is required");
            return n;
        }

        String text(String field) {
            JsonNode n = o.get(field);
            if (n == null || !n.isTextual()) throw bad(field + " is required (a string)");
            return n.textValue();
        }

        /** A key: a string, or any other scalar as its JSON text ({@code "key":5} is key "5"). */
        String key(String field) {
            JsonNode n = o.get(field);
            if (n == null || n.isNull()) throw bad(field + " is required");
            return keyText(n, field);
        }

        String keyText(JsonNode n, String field) {
            if (n.isTextual()) return n.textValue();
            if (n.isValueNode() && !n.isNull()) return n.asText();
            throw bad(field + " must be a string");
        }

        long integer(String field, long min, long max) {
            JsonNode n = o.get(field);
            if (n == null || !n.isNumber() || !n.canConvertToExactIntegral() || !n.canConvertToLong())
                throw bad(field + " must be an integer");
            long v = n.longValue();
            if (v < min || v > max) throw bad(field + " must be from " + min + " to " + max + ", not " + v);
            return v;
        }

        Number number(String field) {
            JsonNode n = o.get(field);
            if (n == null || !n.isNumber()) throw bad(field + " must be a number");
            return n.numberValue();
        }

        boolean bool(String field) {
            JsonNode n = o.get(field);
            if (!n.isBoolean()) throw bad(field + " must be true or false");
            return n.booleanValue();
        }

        /** Exactly one of {@code ttlSeconds} (> 0) or {@code forever: true}; {@code forever:false} counts as not given. */
        Lifetime lifetime() {
            boolean ttl = o.has("ttlSeconds");
            boolean forever = o.has("forever") && bool("forever");
            if (ttl == forever) throw bad("give exactly one of ttlSeconds or forever:true");
            return forever ? Lifetime.forever() : Lifetime.ttlSeconds(integer("ttlSeconds", 1, Long.MAX_VALUE));
        }

        <W extends Op.WriteOp> Op.WriteOp required(W op) {
            return o.has("required") && bool("required") ? op.asRequired() : op;
        }
    }
}
