package io.queenkv.operator.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.junit.jupiter.api.Test;

/**
 * crds/ holds the CRD generated from these Java types (crd-generator-maven-plugin, process-classes).
 * When the types change, refresh the checked-in copy:
 * {@code mvn -pl operator -am verify -Dqueenkv.updateCrd=true} (or copy the generated file).
 */
class CrdUpToDateTest {
    static final String FILE = "queenkvclusters.queenkv.io-v1.yml";

    static Path generated() {
        return Path.of(System.getProperty("queenkv.generatedCrd", "target/classes/META-INF/fabric8/" + FILE));
    }

    static Path checkedIn() {
        return Path.of(System.getProperty("queenkv.checkedInCrd", "../crds/" + FILE));
    }

    @Test
    void checkedInCrdMatchesTheGeneratedOne() throws IOException {
        Path generated = generated(), checkedIn = checkedIn();
        assertThat(generated).as("the CRD generated at build time (run the build through process-classes)").exists();
        String fresh = Files.readString(generated);
        if (Boolean.getBoolean("queenkv.updateCrd")) {
            Files.createDirectories(checkedIn.getParent());
            Files.copy(generated, checkedIn, StandardCopyOption.REPLACE_EXISTING);
        }
        String hint = "crds/" + FILE + " differs from the CRD generated from io.queenkv.operator.crd. Refresh it with\n"
                + "  mvn -pl operator -am verify -Dqueenkv.updateCrd=true\n"
                + "or\n  cp operator/target/classes/META-INF/fabric8/" + FILE + " crds/\n"
                + "and commit it with the change to the types.";
        assertThat(checkedIn).as(hint).exists();
        assertThat(Files.readString(checkedIn)).as(hint).isEqualTo(fresh);
    }
}
