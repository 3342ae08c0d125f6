package io.queenkv.node.api;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queenkv.node.kv.CallRules;
import io.queenkv.node.kv.Expiry;
import io.queenkv.node.kv.JsonValue;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;
import io.queenkv.node.kv.Settings;

/** Turns request JSON into typed, validated ops, or refuses the whole call with a contract reason. */
public final class CallParser {
    private static final List<String> TENANT_FIELDS = List.of("tenant", "tenantId", "_tenant");
    private static final List<String> PATH_FIELDS = List.of("op", "ns", "namespace", "key");

    private CallParser() {}

    /** The batch body: {@code {"operations":[…]}} or a bare array of ops. */
    public static List<Op> parseBatch(JsonNode body, Settings settings) {
        JsonNode list = body.isArray() ? body : body.isObject() ? body.get("operations") : null;
        if (list == null || !list.isArray())
            throw new Refusal(Reason.KV_BAD_BODY, "body must be {\"operations\":[…]} or an array of ops");
        List<Op> ops = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) ops.add(parseOp(i, list.get(i), settings));
        CallRules.checkCall(ops, settings);
        return ops;
    }

    /** A single-key route: the op comes from the method, ns and key from the path, the rest from the body. */
    public static Op parseSingle(String opName, String ns, String key, JsonNode body, Settings settings) {
        ObjectNode op = Json.MAPPER.createObjectNode();
        if (body != null) {
            if (!body.isObject()) throw new Refusal(Reason.KV_BAD_BODY, "body must be a JSON object");
            for (String field : PATH_FIELDS)
                if (body.has(field)) throw new Refusal(Reason.KV_FIELD_IN_PATH, "'" + field + "' comes from the path, not the body");
            op.setAll((ObjectNode) body);
        }
        op.put("op", opName).put("ns", ns).put("key", key);
        Op parsed = parseOp(0, op, settings);
        CallRules.checkCall(List.of(parsed), settings);
        return parsed;
    }

    static Op parseOp(int i, JsonNode node, Settings settings) {
        if (node == null || !node.isObject()) throw Refusal.atOp(i, Reason.KV_BAD_BODY, "an op must be a JSON object");
        for (String field : TENANT_FIELDS)
            if (node.has(field))
                throw Refusal.atOp(i, Reason.KV_TENANT_NOT_AN_INPUT, "'" + field + "' is not an input: the tenant comes from the credentials");
        JsonNode opNode = node.get("op");
        String name = opNode != null && opNode.isTextual() ? opNode.textValue() : null;
        if (name == null) throw Refusal.atOp(i, Reason.KV_UNKNOWN_OP, "'op' must be a string naming an op");
        JsonNode nsNode = node.get("ns");
        String ns = nsNode != null && nsNode.isTextual() ? nsNode.textValue() : null;
        OpFields f = new OpFields(i, node, settings);
        return switch (name) {
            case "get" -> {
                CallRules.checkNamespace(i, ns);
                yield new Op.Get(ns, f.key(), f.required());
            }
            case "getMany" -> {
                CallRules.checkNamespace(i, ns);
                yield new Op.GetMany(ns, f.keys(), f.required());
            }
            case "getPrefix" -> {
                CallRules.checkNamespace(i, ns);
                yield new Op.GetPrefix(ns, f.prefix(), f.after(), f.limit(), f.bool("keysOnly"), f.required());
            }
            case "put" -> {
                CallRules.checkNamespace(i, ns);
                yield new Op.Put(ns, f.key(), f.value(), f.expiry(), f.expect(), f.required());
            }
            case "putIfAbsent" -> {
                CallRules.checkNamespace(i, ns);
                Long expect = f.expect();
                if (expect != null && expect != 0)
                    throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "putIfAbsent allows only expect 0 (it is implied)");
                yield new Op.PutIfAbsent(ns, f.key(), f.value(), f.expiry(), f.required());
            }
            case "delete" -> {
                CallRules.checkNamespace(i, ns);
                yield new Op.Delete(ns, f.key(), f.expect(), f.required());
            }
            case "incr" -> {
                CallRules.checkNamespace(i, ns);
                if (node.has("expect")) throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "incr takes no expect");
                yield new Op.Incr(ns, f.key(), f.number("delta", true), f.number("min", false), f.number("max", false),
                        f.expiry(), f.required());
            }
            case "check" -> {
                CallRules.checkNamespace(i, ns);
                if (!node.has("expect")) throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "check needs expect");
                yield new Op.Check(ns, f.key(), f.expect(), f.required());
            }
            default -> throw Refusal.atOp(i, Reason.KV_UNKNOWN_OP, "unknown op '" + name + "'");
        };
    }

    /** Reads and checks the fields of one op object. */
    private record OpFields(int i, JsonNode node, Settings settings) {
        String key() {
            String key = keyText(node.get("key"), "key");
            CallRules.checkKey(i, key, "key");
            return key;
        }

        List<String> keys() {
            JsonNode keys = node.get("keys");
            if (keys == null || !keys.isArray()) throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "getMany needs 'keys', an array");
            List<String> out = new ArrayList<>(keys.size());
            for (int k = 0; k < keys.size(); k++) {
                String key = keyText(keys.get(k), "keys[" + k + "]");
                CallRules.checkKey(i, key, "keys[" + k + "]");
                out.add(key);
            }
            return out;
        }

        String prefix() {
            JsonNode p = node.get("prefix");
            if (p == null || p.isNull() || (p.isTextual() && p.textValue().isEmpty()))
                throw Refusal.atOp(i, Reason.KV_PREFIX_REQUIRED, "getPrefix needs a non-empty 'prefix'");
            String prefix = keyText(p, "prefix");
            CallRules.checkKey(i, prefix, "prefix");
            return prefix;
        }

        String after() {
            JsonNode a = node.get("after");
            if (a == null || a.isNull() || (a.isTextual() && a.textValue().isEmpty())) return null;
            String after = keyText(a, "after");
            CallRules.checkKey(i, after, "after");
            return after;
        }

        int limit() {
            JsonNode l = node.get("limit");
            if (l == null) return Op.GetPrefix.DEFAULT_LIMIT;
            BigDecimal n = integral(l);
            if (n == null) throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "limit must be an integer");
            return n.max(BigDecimal.ONE).min(BigDecimal.valueOf(Op.GetPrefix.MAX_LIMIT)).intValue();
        }

        boolean required() {
            return bool("required");
        }

        boolean bool(String field) {
            JsonNode b = node.get(field);
            if (b == null) return false;
            if (!b.isBoolean()) throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "'" + field + "' must be a boolean");
            return b.booleanValue();
        }

        JsonValue value() {
            if (!node.has("value")) throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "'value' is required (JSON null is a value)");
            String json = Json.compact(node.get("value"));
            // An escaped lone surrogate ("\ud800") parses, but has no UTF-8 form: refused, never replaced by '?'.
            if (!CallRules.isValidUnicode(json)) throw Refusal.atOp(i, Reason.KV_BAD_BODY, "value holds an unpaired surrogate");
            JsonValue value = JsonValue.of(json);
            CallRules.checkValue(i, value, settings);
            return value;
        }

        /** Exactly one of ttlSeconds or forever:true. */
        Expiry expiry() {
            JsonNode ttl = node.get("ttlSeconds");
            JsonNode forever = node.get("forever");
            if (forever != null && !forever.isBoolean())
                throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "'forever' must be a boolean");
            boolean isForever = forever != null && forever.booleanValue();
            if ((ttl != null) == isForever)
                throw Refusal.atOp(i, Reason.KV_EXPIRY_NOT_SPECIFIED, "give exactly one of ttlSeconds or forever:true");
            if (isForever) return Expiry.FOREVER;
            BigDecimal seconds = integral(ttl);
            if (seconds == null || seconds.signum() <= 0 || seconds.compareTo(BigDecimal.valueOf(Expiry.MAX_TTL_SECONDS)) > 0)
                throw Refusal.atOp(i, Reason.KV_BAD_TTL, "ttlSeconds must be an integer from 1 to " + Expiry.MAX_TTL_SECONDS);
            return new Expiry.Ttl(seconds.longValueExact());
        }

        /** null when absent; a non-negative integer otherwise. */
        Long expect() {
            JsonNode e = node.get("expect");
            if (e == null) return null;
            BigDecimal n = integral(e);
            if (n == null || n.signum() < 0 || n.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0)
                throw Refusal.atOp(i, Reason.KV_BAD_EXPECT, "expect must be a non-negative integer");
            return n.longValueExact();
        }

        BigDecimal number(String field, boolean mandatory) {
            JsonNode n = node.get(field);
            if (n == null && !mandatory) return null;
            if (n == null || !n.isNumber()) throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "'" + field + "' must be a JSON number");
            return n.decimalValue();
        }

        /** A scalar as key text: strings as they are, other scalars as their JSON text. */
        private String keyText(JsonNode k, String field) {
            if (k == null || k.isNull()) return null;
            if (k.isTextual()) return k.textValue();
            if (k.isValueNode()) return Json.compact(k);
            throw Refusal.atOp(i, Reason.KV_BAD_KEY, field + " must be a string");
        }

        /** The node as an integer (a float with zero fraction counts), or null. */
        private static BigDecimal integral(JsonNode n) {
            if (n == null || !n.isNumber()) return null;
            BigDecimal d = n.decimalValue();
            return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros().scale() <= 0 ? d : null;
        }
    }
}
