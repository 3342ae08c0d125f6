package io.queenkv.node.kv;

import java.util.List;

/** One element of a call's answer, in input order. */
public sealed interface Result {
    int index();

    /** A row as read: {@code value} is null under {@code keysOnly}. */
    record ReadRow(String key, JsonValue value, long version, long expiresAt, long updatedAt) {}

    /** {@code get}: {@code row} is null when the key is absent or expired. */
    record GetResult(int index, String key, ReadRow row) implements Result {}

    record GetManyResult(int index, List<ReadRow> rows, List<String> missing, boolean truncated) implements Result {
        public GetManyResult { rows = List.copyOf(rows); missing = List.copyOf(missing); }
    }

    record GetPrefixResult(int index, List<ReadRow> rows, boolean truncated, String nextAfter) implements Result {
        public GetPrefixResult { rows = List.copyOf(rows); }
    }

    /**
     * A write's answer. {@code reason} is null when applied. {@code value} is null when the answer
     * carries no value field at all (a {@code check} that holds); JSON null is {@link JsonValue#NULL}.
     */
    record WriteResult(int index, String op, boolean applied, WriteReason reason, String key, JsonValue value, long version)
            implements Result {}
}
