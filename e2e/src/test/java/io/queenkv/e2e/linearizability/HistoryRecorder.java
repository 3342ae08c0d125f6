package io.queenkv.e2e.linearizability;

import java.util.ArrayList;
import java.util.List;

/** A thread-safe, append-only concurrent history. */
public final class HistoryRecorder<I, O> {
    private final List<Operation<I, O>> ops = new ArrayList<>();

    public synchronized void add(Operation<I, O> op) {
        ops.add(op);
    }

    /** Records an operation that finished at {@code ret} with {@code output}. */
    public void completed(int clientId, I input, long call, long ret, O output) {
        add(new Operation<>(clientId, input, output, call, ret));
    }

    /** Records an operation whose outcome is unknown (it may or may not have taken effect). */
    public void unknown(int clientId, I input, long call, O unknownOutput) {
        add(new Operation<>(clientId, input, unknownOutput, call, Operation.UNKNOWN_RETURN));
    }

    public synchronized List<Operation<I, O>> snapshot() {
        return List.copyOf(ops);
    }

    public synchronized int size() {
        return ops.size();
    }
}
