package io.queenkv.node.kv;

import java.util.List;

/** What a call answers as a whole. */
public sealed interface Outcome {
    /** Every op evaluated; writes (if any) committed. */
    record Completed(List<Result> results) implements Outcome {
        public Completed { results = List.copyOf(results); }
    }

    /** A {@code required} op lost its precondition: nothing was written. */
    record PreconditionFailed(int failedIndex, WriteReason kvReason, long version, JsonValue value) implements Outcome {}

    /** The idempotency key was already used by a different call: nothing was applied. */
    record IdempotencyKeyReused() implements Outcome {}
}
