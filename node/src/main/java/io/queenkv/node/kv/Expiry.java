package io.queenkv.node.kv;

/** The lifetime every write declares: a TTL in seconds, or forever. */
public sealed interface Expiry {
    /** Longest accepted TTL: about 317 years, so every expiry stays a printable RFC 3339 instant. */
    long MAX_TTL_SECONDS = 10_000_000_000L;

    record Ttl(long seconds) implements Expiry {
        public Ttl {
            if (seconds <= 0 || seconds > MAX_TTL_SECONDS) throw new IllegalArgumentException("ttl out of range");
        }
    }

    record Forever() implements Expiry {}

    Forever FOREVER = new Forever();

    /** The expiry instant in epoch microseconds for a write at {@code nowMicros}. */
    default long expiresAt(long nowMicros) {
        return this instanceof Ttl ttl ? nowMicros + ttl.seconds() * 1_000_000L : Row.NEVER;
    }
}
