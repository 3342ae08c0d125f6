package io.queenkv.e2e.linearizability;

import java.util.List;

/**
 * A sequential specification for the checker: the states an object can be in and how each
 * operation moves between them.
 *
 * <p>The model may be nondeterministic: {@link #step} returns every state the object may be in
 * after the operation, or an empty list when the operation, with that output, is impossible in
 * that state. The checker then tracks sets of possible states (the powerset construction Porcupine
 * uses for its nondeterministic models). States must be immutable values with proper
 * {@code equals}/{@code hashCode}: they are memoized.
 */
public interface Model<S, I, O> {
    S init();

    List<S> step(S state, I input, O output);

    /**
     * Operations with different partition keys act on independent objects (e.g. different keys of
     * a KV store) and are checked separately. Default: one partition.
     */
    default Object partitionKey(I input) {
        return "";
    }

    /** For failure reports. */
    default String describe(I input, O output) {
        return input + " -> " + output;
    }
}
