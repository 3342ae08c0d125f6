package io.queenkv.client;

import java.time.Duration;
import java.util.Optional;

/**
 * The node refused the call (HTTP 4xx; a 429 only after the SDK ran out of attempts). Nothing of the
 * call was applied. {@code error}, {@code reason} and {@code detail} are the node's error body,
 * e.g. {@code 400 kv_bad_request / kv_bad_namespace / "op at index 0: …"}.
 */
public final class QueenKvRefusedException extends QueenKvException {
    private final int status;
    private final String error;
    private final String reason;
    private final String detail;
    private final Duration retryAfter;

    public QueenKvRefusedException(int status, String error, String reason, String detail, Duration retryAfter) {
        super(status + " " + error + "/" + reason + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        this.status = status;
        this.error = error;
        this.reason = reason;
        this.detail = detail;
        this.retryAfter = retryAfter;
    }

    /** The HTTP status (400, 401, 403, 404, 409, 413, 429, …). */
    public int status() {
        return status;
    }

    /** {@code kv_bad_request}, {@code payload_too_large}, {@code kv_conflict}, {@code rate_limited}, … */
    public String error() {
        return error;
    }

    /** {@code kv_bad_namespace}, {@code kv_expiry_not_specified}, {@code kv_idempotency_key_reused}, … */
    public String reason() {
        return reason;
    }

    /** The node's explanation, naming the op index where there is one. */
    public String detail() {
        return detail;
    }

    /** The {@code Retry-After} of a 429. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
