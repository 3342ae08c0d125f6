package io.queenkv.client;

/**
 * No endpoint gave an answer within the attempts allowed: connection failures, timeouts or 503.
 * For a call with writes the outcome is <b>unknown</b>: it may or may not have been applied.
 * Repeating it through {@link Batch#idempotencyKey(String)} with {@link #idempotencyKey()} applies
 * it at most once (within the node's idempotency window).
 */
public final class QueenKvUnavailableException extends QueenKvException {
    private final String reason;
    private final int attempts;
    private final String idempotencyKey;

    public QueenKvUnavailableException(String message, String reason, int attempts, String idempotencyKey, Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.attempts = attempts;
        this.idempotencyKey = idempotencyKey;
    }

    /**
     * The last failure: the node's 503 reason ({@code kv_timeout}, {@code kv_no_leader},
     * {@code kv_retry}), or {@code timeout} / {@code connection_failed} / {@code http_<status>}.
     */
    public String reason() {
        return reason;
    }

    public int attempts() {
        return attempts;
    }

    /** True for a call with writes: it may or may not have been applied. */
    public boolean outcomeUnknown() {
        return idempotencyKey != null;
    }

    /** The Idempotency-Key the call was sent with (null for a read-only call). */
    public String idempotencyKey() {
        return idempotencyKey;
    }
}
