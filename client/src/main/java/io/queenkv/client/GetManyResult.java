package io.queenkv.client;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The answer of {@code getMany}: the live rows in key byte order, the absent or expired keys in
 * input order, and {@code truncated} when the call's read budget stopped adding rows.
 */
public record GetManyResult<T>(List<Row<T>> rows, List<String> missing, boolean truncated) implements OpResult {
    public GetManyResult {
        rows = List.copyOf(rows);
        missing = List.copyOf(missing);
    }

    /** The rows by key. */
    public Map<String, Row<T>> byKey() {
        Map<String, Row<T>> map = new LinkedHashMap<>();
        for (Row<T> row : rows) map.put(row.key(), row);
        return map;
    }
}
