package io.queenkv.cli;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Columns aligned with two spaces between them; with a header row, or as {@code name  value}
 * lines. Control characters in a cell (a key may hold any) are shown escaped, one row per line.
 */
final class Table {
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    private Table(List<String> header) {
        this.header = header;
    }

    static Table withHeader(String... header) {
        return new Table(List.of(header));
    }

    /** Name–value lines, no header. */
    static Table fields() {
        return new Table(List.of());
    }

    Table row(Object... cells) {
        List<String> row = new ArrayList<>(cells.length);
        for (Object c : cells) row.add(cell(c));
        rows.add(row);
        return this;
    }

    void print(PrintStream out) {
        List<List<String>> all = new ArrayList<>();
        if (!header.isEmpty()) all.add(header);
        all.addAll(rows);
        int columns = all.stream().mapToInt(List::size).max().orElse(0);
        int[] width = new int[columns];
        for (List<String> row : all)
            for (int i = 0; i < row.size(); i++) width[i] = Math.max(width[i], row.get(i).length());
        for (List<String> row : all) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                boolean last = i == row.size() - 1;
                line.append(row.get(i));
                if (!last) line.append(" ".repeat(width[i] - row.get(i).length() + 2));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /** A value as compact JSON, an instant in ISO form, null as empty. */
    static String cell(Object value) {
        if (value == null) return "";
        String s = value instanceof JsonNode json ? Json.text(json)
                : value instanceof Instant instant ? instant.toString() : String.valueOf(value);
        return escapeControls(s);
    }

    private static String escapeControls(String s) {
        if (s.chars().noneMatch(Character::isISOControl)) return s;
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (char c : s.toCharArray()) {
            if (Character.isISOControl(c)) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.toString();
    }
}
