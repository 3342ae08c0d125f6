package io.queenkv.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * When to try a call again. A call is retried on connection failures, timeouts and 503 (on the next
 * endpoint, after an exponential backoff with jitter) and on 429 (on the same endpoint, after the
 * node's {@code Retry-After}); any other answer is final. A write call keeps one Idempotency-Key
 * across its attempts, so a retry never applies it twice.
 *
 * @param maxAttempts    attempts per call, at least 1 (default 3)
 * @param initialBackoff the wait before the second attempt (default 100 ms); doubles per attempt
 * @param maxBackoff     the longest backoff (default 2 s); does not cap a 429's Retry-After
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    public static final RetryPolicy DEFAULT = new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(2));

    public RetryPolicy {
        if (maxAttempts < 1) throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0)
            throw new IllegalArgumentException("need 0 <= initialBackoff <= maxBackoff");
    }

    public RetryPolicy withMaxAttempts(int attempts) {
        return new RetryPolicy(attempts, initialBackoff, maxBackoff);
    }

    /** What went wrong with one attempt. */
    public enum Failure {
        /** Could not connect, or the connection broke before a whole answer. */
        CONNECTION_FAILED,
        /** No answer within the request timeout. */
        TIMEOUT,
        /** 503 (or another 5xx): the node could not serve the call now. */
        UNAVAILABLE,
        /** 429: over the tenant's rate limit on that node. */
        RATE_LIMITED;

        /** Every failure but a rate limit moves on to the next endpoint. */
        public boolean switchesEndpoint() {
            return this != RATE_LIMITED;
        }
    }

    /**
     * The wait before the attempt after {@code attempt} (1-based) failed with {@code failure}, or
     * empty when the call gives up. {@code retryAfter} is the answer's {@code Retry-After} (or null);
     * {@code jitter} in [0,1) spreads the backoff over its upper half.
     */
    public Optional<Duration> delayAfter(int attempt, Failure failure, Duration retryAfter, double jitter) {
        if (attempt >= maxAttempts) return Optional.empty();
        if (failure == Failure.RATE_LIMITED && retryAfter != null) return Optional.of(retryAfter);
        long base = initialBackoff.toMillis() << Math.min(attempt - 1, 20);
        long capped = Math.min(base, maxBackoff.toMillis());
        return Optional.of(Duration.ofMillis((long) (capped * (0.5 + 0.5 * jitter))));
    }
}
