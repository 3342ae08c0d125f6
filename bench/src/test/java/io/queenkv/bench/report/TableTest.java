package io.queenkv.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class TableTest {
    private final Table numbers = new Table(List.of("workload", "ops/s"),
            List.of(List.of("put-256B-1", "117"), List.of("get", "12,558")), true);

    @Test
    void plainTextPadsColumnsAndRightAlignsFigures() {
        assertThat(numbers.plain()).isEqualTo("""
                workload     ops/s
                ------------------
                put-256B-1     117
                get         12,558
                """);
    }

    @Test
    void markdownRightAlignsFigureColumns() {
        assertThat(numbers.markdown()).isEqualTo("""
                | workload | ops/s |
                |---|---:|
                | put-256B-1 | 117 |
                | get | 12,558 |
                """);
    }

    @Test
    void aTextTableIsLeftAligned() {
        Table text = new Table(List.of("a", "b"), List.of(List.of("x", "long text"), List.of("yy", "t")), false);
        assertThat(text.plain()).contains("yy  t        \n");
        assertThat(text.markdown()).contains("|---|---|");
    }

    @Test
    void everyRowHasAsManyCellsAsTheHeader() {
        assertThatThrownBy(() -> new Table(List.of("a", "b"), List.of(List.of("only one")), true))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
