package io.queenkv.e2e.linearizability;

/**
 * One operation of a concurrent history: who ran it, what it asked, what it got, and when.
 *
 * <p>{@code call} and {@code ret} are {@link System#nanoTime()} readings taken by the client just
 * before sending and just after the answer. An operation whose outcome is unknown (timeout, 503,
 * connection error) has {@code ret = }{@link #UNKNOWN_RETURN} (+infinity): it may have taken effect
 * at any point after its call, or never — "never" is the same as "after every other operation",
 * which is how the checker treats it (as Porcupine does). Its output is then unconstrained (the
 * model gets the model's "unknown" output).
 */
public record Operation<I, O>(int clientId, I input, O output, long call, long ret) {
    public static final long UNKNOWN_RETURN = Long.MAX_VALUE;

    public Operation {
        if (ret < call) throw new IllegalArgumentException("return before call: " + call + " > " + ret);
    }

    public boolean unknownOutcome() {
        return ret == UNKNOWN_RETURN;
    }
}
