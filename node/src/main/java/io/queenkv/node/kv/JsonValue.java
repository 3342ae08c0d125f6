package io.queenkv.node.kv;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A stored value: compact JSON text, exactly as it is measured against the value limit and as it is
 * written back to callers. The engine never needs a JSON tree: only {@code incr} looks inside, and
 * only at a number.
 */
public record JsonValue(String json, int utf8Length) {
    public static final JsonValue NULL = of("null");

    public JsonValue {
        if (json == null || json.isEmpty()) throw new IllegalArgumentException("empty JSON text");
    }

    /** Wraps compact JSON text; its UTF-8 size is what the value limit and the read budget count. */
    public static JsonValue of(String compactJson) {
        return new JsonValue(compactJson, compactJson.getBytes(StandardCharsets.UTF_8).length);
    }

    public static JsonValue ofNumber(BigDecimal number) {
        return of(Numbers.toJson(number));
    }

    /** The value as an exact number, when it is a JSON number. */
    public Optional<BigDecimal> asNumber() {
        char c = json.charAt(0);
        if (c != '-' && (c < '0' || c > '9')) return Optional.empty();
        try {
            return Optional.of(new BigDecimal(json));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
