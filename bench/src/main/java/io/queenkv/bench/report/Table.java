package io.queenkv.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A table of text cells, rendered as aligned plain text (the console) or as Markdown (the README).
 * In a {@code numeric} table every column but the first holds figures and is right-aligned.
 */
public record Table(List<String> header, List<List<String>> rows, boolean numeric) {
    public Table {
        header = List.copyOf(header);
        rows = rows.stream().map(List::copyOf).toList();
        for (List<String> row : rows)
            if (row.size() != header.size())
                throw new IllegalArgumentException("a row has " + row.size() + " cells, the header " + header.size());
    }

    /** Columns padded to their widest cell. */
    public String plain() {
        int[] widths = new int[header.size()];
        for (List<String> row : all())
            for (int c = 0; c < row.size(); c++) widths[c] = Math.max(widths[c], row.get(c).length());
        StringBuilder sb = new StringBuilder();
        List<List<String>> all = all();
        for (int r = 0; r < all.size(); r++) {
            List<String> row = all.get(r);
            for (int c = 0; c < row.size(); c++) {
                if (c > 0) sb.append("  ");
                String cell = row.get(c);
                String pad = " ".repeat(widths[c] - cell.length());
                sb.append(c == 0 || !numeric ? cell + pad : pad + cell);
            }
            sb.append('\n');
            if (r == 0) {
                int total = 0;
                for (int w : widths) total += w;
                sb.append("-".repeat(total + 2 * (widths.length - 1))).append('\n');
            }
        }
        return sb.toString();
    }

    public String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| ").append(String.join(" | ", header)).append(" |\n");
        sb.append("|");
        for (int c = 0; c < header.size(); c++) sb.append(c == 0 || !numeric ? "---|" : "---:|");
        sb.append('\n');
        for (List<String> row : rows) sb.append("| ").append(String.join(" | ", row)).append(" |\n");
        return sb.toString();
    }

    private List<List<String>> all() {
        List<List<String>> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        return all;
    }
}
