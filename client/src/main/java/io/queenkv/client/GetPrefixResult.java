package io.queenkv.client;

import java.util.List;

/**
 * One page of {@code getPrefix}: rows in key byte order; when {@code truncated}, {@code nextAfter}
 * is the cursor for the next page (see {@link QueenKv#scan} for walking every page).
 */
public record GetPrefixResult<T>(List<Row<T>> rows, boolean truncated, String nextAfter) implements OpResult {
    public GetPrefixResult {
        rows = List.copyOf(rows);
    }
}
