package io.queenkv.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The chart ships the CRD in charts/queen-kv-operator/crds/ (Helm installs it before the templates); it
 * must be the same file as crds/ at the repository root, which CrdUpToDateTest keeps equal to the CRD
 * generated from the Java types. {@code -Dqueenkv.updateCrd=true} refreshes both copies.
 */
class ChartCrdInSyncTest {
    static final String HINT = "charts/queen-kv-operator/crds/" + ChartFiles.CRD_FILE + " differs from crds/" + ChartFiles.CRD_FILE
            + ". Resync it from the repository root with\n"
            + "  cp crds/" + ChartFiles.CRD_FILE + " charts/queen-kv-operator/crds/\n"
            + "(or refresh both from the Java types: mvn -pl operator -am verify -Dqueenkv.updateCrd=true) and commit both.";

    @Test
    void chartCrdIsACopyOfTheCheckedInCrd() throws IOException {
        Path checkedIn = ChartFiles.checkedInCrd(), chartCopy = ChartFiles.chartCrd();
        if (Boolean.getBoolean("queenkv.updateCrd")) {
            // Same source as CrdUpToDateTest's refresh, so the order the two tests run in does not matter.
            Path source = Files.exists(ChartFiles.generatedCrd()) ? ChartFiles.generatedCrd() : checkedIn;
            Files.createDirectories(chartCopy.getParent());
            Files.copy(source, chartCopy, StandardCopyOption.REPLACE_EXISTING);
        }
        assertThat(checkedIn).as("crds/" + ChartFiles.CRD_FILE).exists();
        assertThat(chartCopy).as(HINT).exists();
        assertThat(Files.readString(chartCopy)).as(HINT).isEqualTo(Files.readString(checkedIn));
    }

    @Test
    void chartCrdsHoldsOnlyTheCrd() throws IOException {
        try (Stream<Path> files = Files.list(ChartFiles.chartCrd().getParent())) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("charts/queen-kv-operator/crds/ (Helm applies every file there)")
                    .containsExactly(ChartFiles.CRD_FILE);
        }
    }
}
