package io.queenkv.operator.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.queenkv.node.kv.Setting;

/**
 * The resource's settings take exactly the node's bounds: for every cluster-wide row of the node's
 * settings table, {@code spec.settings} (and {@code status.settings}) of the CRD has the same
 * minimum and maximum, and no setting the table lacks.
 */
class SettingBoundsTest {
    @Test
    void theCrdHasTheBoundsOfTheNodesSettingsTable() throws IOException {
        JsonNode crd = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(CrdUpToDateTest.checkedIn()));
        JsonNode schema = crd.at("/spec/versions/0/schema/openAPIV3Schema/properties");
        for (String where : List.of("spec", "status")) {
            JsonNode settings = schema.at("/" + where + "/properties/settings/properties");
            assertThat(settings.isObject()).as(where + ".settings in the CRD").isTrue();
            List<String> fields = new java.util.ArrayList<>();
            settings.fieldNames().forEachRemaining(fields::add);
            assertThat(fields).as(where + ".settings").containsExactlyInAnyOrderElementsOf(Setting.live().stream().map(s -> s.field).toList());
            for (Setting s : Setting.live()) {
                JsonNode field = settings.get(s.field);
                assertThat(field.get("minimum").asLong()).as(where + "." + s.field + " minimum").isEqualTo(s.min);
                assertThat(field.get("maximum").asLong()).as(where + "." + s.field + " maximum").isEqualTo(s.max);
            }
        }
    }
}
