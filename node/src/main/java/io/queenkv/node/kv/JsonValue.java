package io.queenkv.node.kv;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * A stored value: compact JSON text as UTF-8, exactly as it is measured against the value limit and
 * as it is written back to callers. The engine never needs a JSON tree: only {@code incr} looks
 * inside, and only at a number. Held as bytes, not as a {@code String}: a node keeps one per key, and
 * the bytes are what the log, snapshots and answers carry (a String would add an object per key, and
 * twice the bytes for text outside Latin-1). Never modified after construction.
 */
public final class JsonValue {
    public static final JsonValue NULL = of("null");

    private final byte[] utf8;

    private JsonValue(byte[] utf8) {
        if (utf8.length == 0) throw new IllegalArgumentException("empty JSON text");
        this.utf8 = utf8;
    }

    /** Wraps compact JSON text; its UTF-8 size is what the value limit and the read budget count. */
    public static JsonValue of(String compactJson) {
        return new JsonValue(compactJson.getBytes(StandardCharsets.UTF_8));
    }

    /** Takes compact JSON text already encoded as UTF-8; the caller hands the array over and keeps no reference. */
    static JsonValue ofUtf8(byte[] compactJson) {
        return new JsonValue(compactJson);
    }

    public static JsonValue ofNumber(BigDecimal number) {
        return of(Numbers.toJson(number));
    }

    /** The size that the value limit and the read budget count. */
    public int utf8Length() {
        return utf8.length;
    }

    /** The UTF-8 bytes themselves, for writers that copy them out; never modify them. */
    public byte[] utf8() {
        return utf8;
    }

    /** The JSON text (decoded on every call). */
    public String json() {
        return new String(utf8, StandardCharsets.UTF_8);
    }

    /** The value as an exact number, when it is a JSON number. */
    public Optional<BigDecimal> asNumber() {
        byte c = utf8[0];
        if (c != '-' && (c < '0' || c > '9')) return Optional.empty();
        try {
            return Optional.of(new BigDecimal(json()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonValue other && Arrays.equals(utf8, other.utf8);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(utf8);
    }

    @Override
    public String toString() {
        return json();
    }
}
