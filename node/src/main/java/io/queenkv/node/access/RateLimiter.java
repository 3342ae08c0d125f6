package io.queenkv.node.access;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Per-tenant token buckets of this node: one for write calls, one for read calls, each refilling
 * at its rate with a burst of twice the rate. Each call costs one token.
 */
public final class RateLimiter {
    public enum Kind { READ, WRITE }

    private record BucketId(String tenant, Kind kind) {}

    private static final class Bucket {
        double tokens;
        long refilledAtNanos;

        Bucket(double tokens, long now) {
            this.tokens = tokens;
            this.refilledAtNanos = now;
        }
    }

    private final ConcurrentHashMap<BucketId, Bucket> buckets = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;

    public RateLimiter(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /**
     * Takes one token. Returns 0 when granted, else the whole seconds (≥ 1) until a token is due.
     */
    public long acquire(String tenant, Kind kind, int ratePerSecond) {
        long now = nanoClock.getAsLong();
        double burst = 2.0 * ratePerSecond;
        Bucket bucket = buckets.computeIfAbsent(new BucketId(tenant, kind), id -> new Bucket(burst, now));
        synchronized (bucket) {
            bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.refilledAtNanos) / 1e9 * ratePerSecond);
            bucket.refilledAtNanos = now;
            if (bucket.tokens >= 1) {
                bucket.tokens -= 1;
                return 0;
            }
            return Math.max(1, (long) Math.ceil((1 - bucket.tokens) / ratePerSecond));
        }
    }
}
