package io.queenkv.client;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;

/**
 * The answer of a whole call: either every op's result ({@link Completed}), or — when an op marked
 * {@code required} was not applied — nothing written at all ({@link PreconditionFailed}).
 *
 * <pre>{@code
 * BatchResult result = kv.batch()...execute();
 * if (result instanceof BatchResult.Completed done) {
 *     long version = done.write(0).version();
 * } else if (result instanceof BatchResult.PreconditionFailed failed) {
 *     int which = failed.failedIndex();
 * }
 * }</pre>
 */
public sealed interface BatchResult permits BatchResult.Completed, BatchResult.PreconditionFailed {

    /** True when every op ran (some writes may still have {@code applied:false}). */
    default boolean completed() {
        return this instanceof Completed;
    }

    /** The results, one per op in input order. */
    record Completed(List<OpResult> results) implements BatchResult {
        public Completed {
            results = List.copyOf(results);
        }

        public OpResult result(int index) {
            return results.get(index);
        }

        /** The result of the {@code get} at {@code index}, typed as the batch asked for. */
        @SuppressWarnings("unchecked")
        public <T> GetResult<T> get(int index) {
            return (GetResult<T>) as(index, GetResult.class);
        }

        @SuppressWarnings("unchecked")
        public <T> GetManyResult<T> getMany(int index) {
            return (GetManyResult<T>) as(index, GetManyResult.class);
        }

        @SuppressWarnings("unchecked")
        public <T> GetPrefixResult<T> getPrefix(int index) {
            return (GetPrefixResult<T>) as(index, GetPrefixResult.class);
        }

        /** The result of the write or check at {@code index}. */
        public WriteResult write(int index) {
            return as(index, WriteResult.class);
        }

        private <R> R as(int index, Class<R> type) {
            OpResult r = results.get(index);
            if (!type.isInstance(r))
                throw new IllegalArgumentException("the op at index " + index + " answered a " + r.getClass().getSimpleName()
                        + ", not a " + type.getSimpleName());
            return type.cast(r);
        }
    }

    /**
     * The {@code required} op at {@code failedIndex} was not applied for {@code kvReason}, so nothing
     * of the call was written; {@code value}/{@code version} are that key's current live value and
     * version (null and 0 when absent).
     */
    record PreconditionFailed(int failedIndex, WriteReason kvReason, long version, JsonNode value) implements BatchResult {
        public PreconditionFailed {
            if (value == null) value = NullNode.getInstance();
        }
    }
}
