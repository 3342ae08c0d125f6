package io.queenkv.node.kv;

/** One stored key's current state. Times are epoch microseconds; {@link #NEVER} marks a forever key. */
public record Row(JsonValue value, long version, long expiresAt, long updatedAt) {
    public static final long NEVER = Long.MAX_VALUE;

    public boolean liveAt(long nowMicros) {
        return expiresAt > nowMicros;
    }

    public boolean forever() {
        return expiresAt == NEVER;
    }
}
