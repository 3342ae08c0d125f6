package io.queenkv.client;

import java.time.Instant;
import java.util.Optional;

/**
 * The answer of {@code get}: {@code found} false for an absent or expired key (then value and the
 * instants are null and version is 0). {@code expiresAt} is null for a {@code forever} key.
 */
public record GetResult<T>(String key, boolean found, T value, long version, Instant expiresAt, Instant updatedAt)
        implements OpResult {

    /** The row, when found. */
    public Optional<Row<T>> row() {
        return found ? Optional.of(new Row<>(key, value, version, expiresAt, updatedAt)) : Optional.empty();
    }

    /** The value, when found and not JSON null. */
    public Optional<T> valueIfFound() {
        return found ? Optional.ofNullable(value) : Optional.empty();
    }
}
