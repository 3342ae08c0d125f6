package io.queenkv.client;

/** Why a write (or a check) was not applied. */
public enum WriteReason {
    /** {@code putIfAbsent} (or {@code expect:0}) found a live key. */
    EXISTS,
    /** The key is absent or expired. */
    ABSENT,
    /** The key is at another version than {@code expect}. */
    VERSION,
    /** {@code incr} would pass {@code min} or {@code max}; nothing was written. */
    LIMIT,
    /** {@code incr} on a live value that is not a number. */
    TYPE;

    /** The wire name ({@code "exists"}, …). */
    public String wire() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Parses a wire name. */
    public static WriteReason fromWire(String wire) {
        for (WriteReason r : values()) if (r.wire().equals(wire)) return r;
        throw new QueenKvException("unexpected write reason from the node: " + wire);
    }
}
