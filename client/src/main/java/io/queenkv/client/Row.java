package io.queenkv.client;

import java.time.Instant;

/**
 * A live key as read: its value (null under {@code keysOnly}, or when the stored value is JSON
 * null), its version, when it expires ({@code null} for a {@code forever} key) and when it was
 * last written.
 */
public record Row<T>(String key, T value, long version, Instant expiresAt, Instant updatedAt) {
    /** True for a key written with {@code forever}. */
    public boolean forever() {
        return expiresAt == null;
    }
}
