package io.queenkv.operator.chart;

import java.nio.file.Path;

/** Where the chart, the checked-in CRD and the examples are, seen from the operator module's tests. */
final class ChartFiles {
    static final String CRD_FILE = "queenkvclusters.queenkv.io-v1.yml";

    private ChartFiles() {}

    /** crds/ at the repository root (the surefire property {@code queenkv.checkedInCrd}, as CrdUpToDateTest uses it). */
    static Path checkedInCrd() {
        return Path.of(System.getProperty("queenkv.checkedInCrd", "../crds/" + CRD_FILE)).toAbsolutePath().normalize();
    }

    /** The CRD generated from the Java types at build time. */
    static Path generatedCrd() {
        return Path.of(System.getProperty("queenkv.generatedCrd", "target/classes/META-INF/fabric8/" + CRD_FILE));
    }

    static Path repoRoot() {
        return checkedInCrd().getParent().getParent();
    }

    static Path chart() {
        return repoRoot().resolve("charts/queen-kv-operator");
    }

    static Path chartCrd() {
        return chart().resolve("crds").resolve(CRD_FILE);
    }

    static Path example() {
        return repoRoot().resolve("examples/queenkvcluster.yaml");
    }
}
