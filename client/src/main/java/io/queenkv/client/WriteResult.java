package io.queenkv.client;

import java.math.BigDecimal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;

/**
 * The answer of a write ({@code put}, {@code putIfAbsent}, {@code delete}, {@code incr}) or a
 * {@code check}.
 *
 * <ul>
 *   <li>applied: {@code value}/{@code version} are what was written (for {@code delete}, the deleted
 *       value and its last version; for {@code check}, version = expect and no value);</li>
 *   <li>not applied: {@code reason} says why, and {@code value}/{@code version} are the key's current
 *       live value and version (null and 0 when absent) — the winner of a lost race.</li>
 * </ul>
 * {@code value} is the JSON as stored; {@link #value(Class)} maps it to a type.
 */
public record WriteResult(String op, String key, boolean applied, WriteReason reason, JsonNode value, long version)
        implements OpResult {
    private static final ObjectMapper DEFAULT_MAPPER = new ObjectMapper();

    public WriteResult {
        if (value == null) value = NullNode.getInstance();
    }

    /** The value mapped to {@code type} with a plain Jackson {@link ObjectMapper} (null for JSON null). */
    public <T> T value(Class<T> type) {
        return value(type, DEFAULT_MAPPER);
    }

    /** The value mapped to {@code type} with {@code mapper}. */
    public <T> T value(Class<T> type, ObjectMapper mapper) {
        try {
            return mapper.treeToValue(value, type);
        } catch (JsonProcessingException e) {
            throw new QueenKvException("the value of " + key + " does not map to " + type.getName() + ": " + e.getOriginalMessage(), e);
        }
    }

    /** The value as a number (an {@code incr} result); null when it is not a number. */
    public BigDecimal number() {
        return value.isNumber() ? value.decimalValue() : null;
    }

    /** The value as a long (an integer {@code incr} result). */
    public long longValue() {
        if (!value.isNumber()) throw new QueenKvException("the value of " + key + " is not a number: " + value);
        return value.longValue();
    }
}
