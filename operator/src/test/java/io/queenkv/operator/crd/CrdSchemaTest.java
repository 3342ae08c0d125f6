package io.queenkv.operator.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.Serialization;

/** What {@code kubectl apply} refuses, as the generated schema says it. */
class CrdSchemaTest {
    static CustomResourceDefinition crd;
    static CustomResourceDefinitionVersion version;
    static JSONSchemaProps root, spec, status;

    @BeforeAll
    static void load() throws IOException {
        crd = Serialization.unmarshal(Files.readString(CrdUpToDateTest.generated()), CustomResourceDefinition.class);
        version = crd.getSpec().getVersions().get(0);
        root = version.getSchema().getOpenAPIV3Schema();
        spec = root.getProperties().get("spec");
        status = root.getProperties().get("status");
    }

    static JSONSchemaProps at(JSONSchemaProps p, String... path) {
        for (String s : path) p = p.getProperties().get(s);
        return p;
    }

    @Test
    void namesScopeAndVersion() {
        assertThat(crd.getMetadata().getName()).isEqualTo("queenkvclusters.queenkv.io");
        assertThat(crd.getSpec().getGroup()).isEqualTo("queenkv.io");
        assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
        assertThat(crd.getSpec().getNames().getKind()).isEqualTo("QueenKvCluster");
        assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("qkv");
        assertThat(crd.getSpec().getVersions()).singleElement().satisfies(v -> {
            assertThat(v.getName()).isEqualTo("v1alpha1");
            assertThat(v.getServed()).isTrue();
            assertThat(v.getStorage()).isTrue();
        });
    }

    @Test
    void statusAndScaleSubresources() {
        assertThat(version.getSubresources().getStatus()).isNotNull();
        assertThat(version.getSubresources().getScale().getSpecReplicasPath()).isEqualTo(".spec.replicas");
        assertThat(version.getSubresources().getScale().getStatusReplicasPath()).isEqualTo(".status.replicas");
        assertThat(version.getSubresources().getScale().getLabelSelectorPath()).isEqualTo(".status.selector");
    }

    @Test
    void printerColumns() {
        assertThat(version.getAdditionalPrinterColumns())
                .extracting(CustomResourceColumnDefinition::getName, CustomResourceColumnDefinition::getJsonPath)
                .contains(
                        org.assertj.core.groups.Tuple.tuple("Ready", ".status.readyReplicas"),
                        org.assertj.core.groups.Tuple.tuple("Replicas", ".spec.replicas"),
                        org.assertj.core.groups.Tuple.tuple("Leader", ".status.leader"),
                        org.assertj.core.groups.Tuple.tuple("Phase", ".status.phase"),
                        org.assertj.core.groups.Tuple.tuple("Age", ".metadata.creationTimestamp"));
        assertThat(version.getAdditionalPrinterColumns()).filteredOn(c -> c.getName().equals("Age"))
                .singleElement().extracting(CustomResourceColumnDefinition::getType).isEqualTo("date");
    }

    @Test
    void specIsRequiredAndNameIsShortEnough() {
        assertThat(root.getXKubernetesValidations()).extracting(ValidationRule::getRule)
                .containsExactlyInAnyOrder("has(self.spec)", "self.metadata.name.size() <= 40");
    }

    @Test
    void replicasAreOddFromOneToSevenDefaultThree() {
        JSONSchemaProps r = at(spec, "replicas");
        assertThat(r.getType()).isEqualTo("integer");
        assertThat(r.getMinimum()).isEqualTo(1.0);
        assertThat(r.getMaximum()).isEqualTo(7.0);
        assertThat(r.getDefault().asInt()).isEqualTo(3);
        assertThat(r.getXKubernetesValidations()).singleElement()
                .satisfies(v -> assertThat(v.getRule()).isEqualTo("self % 2 == 1"));
    }

    @Test
    void imageIsRequiredAndStorageIsImmutable() {
        assertThat(spec.getRequired()).containsExactly("image");
        assertThat(at(spec, "image").getPattern()).isEqualTo("^\\S+$");
        assertThat(spec.getXKubernetesValidations()).extracting(v -> v.getRule())
                .anyMatch(r -> r.contains("self.storage == oldSelf.storage"))
                .anyMatch(r -> r.contains("self.tls == oldSelf.tls"));
        assertThat(at(spec, "storage", "size").getDefault().asText()).isEqualTo("1Gi");
        assertThat(at(spec, "storage", "size").getPattern()).startsWith("^[0-9]+");
    }

    @Test
    void removeMembersAreMemberOrdinals() {
        JSONSchemaProps r = at(spec, "removeMembers");
        assertThat(r.getType()).isEqualTo("array");
        assertThat(r.getItems().getSchema().getType()).isEqualTo("integer");
        assertThat(r.getMaxItems()).isEqualTo(7L);
        assertThat(r.getXKubernetesValidations()).singleElement()
                .satisfies(v -> assertThat(v.getRule()).isEqualTo("self.all(k, k >= 0 && k <= 6)"));
        assertThat(spec.getRequired()).doesNotContain("removeMembers");
    }

    @Test
    void replaceNotServingAfterIsADurationOfTenMinutesByDefault() {
        JSONSchemaProps r = at(spec, "replaceNotServingAfter");
        assertThat(r.getType()).isEqualTo("string");
        assertThat(r.getDefault().asText()).isEqualTo(QueenKvClusterSpec.DEFAULT_REPLACE_NOT_SERVING_AFTER).isEqualTo("10m");
        assertThat(r.getPattern()).isEqualTo(SpecDuration.PATTERN);
        assertThat(spec.getRequired()).doesNotContain("replaceNotServingAfter");
    }

    @Test
    void everySettingIsOptional() {
        // Their ranges are the node's settings table: SettingBoundsTest.
        assertThat(at(spec, "settings").getRequired()).isNullOrEmpty();
    }

    @Test
    void authAndTlsNeedTheirSecrets() {
        assertThat(at(spec, "auth").getRequired()).containsExactlyInAnyOrder("tokensSecretRef", "adminTokenSecretRef");
        assertThat(at(spec, "auth", "tokensSecretRef").getRequired()).containsExactly("name");
        assertThat(at(spec, "tls").getRequired()).isNullOrEmpty();
        assertThat(at(spec, "tls", "secretRef").getRequired()).containsExactly("name");
        assertThat(at(spec, "tls", "issuerRef").getRequired()).containsExactly("name");
        assertThat(at(spec, "tls", "mode").getEnum()).extracting(JsonNode -> JsonNode.asText())
                .containsExactlyInAnyOrder("Operator", "CertManager", "Secret", "Disabled");
        assertThat(at(spec, "tls", "issuerRef", "kind").getEnum()).extracting(JsonNode -> JsonNode.asText())
                .containsExactlyInAnyOrder("Issuer", "ClusterIssuer");
        assertThat(at(spec, "tls").getXKubernetesValidations()).extracting(v -> v.getRule())
                .contains("!(has(self.secretRef) && has(self.issuerRef))",
                        "!has(self.mode) || self.mode != 'Secret' || has(self.secretRef)",
                        "!has(self.mode) || self.mode != 'CertManager' || has(self.issuerRef)");
    }

    @Test
    void podTemplateOverridesUseTheCoreSchemas() {
        assertThat(at(spec, "podTemplate").getProperties()).containsKeys("affinity", "tolerations", "topologySpreadConstraints", "nodeSelector");
        assertThat(at(spec, "podTemplate", "affinity").getProperties()).containsKeys("podAntiAffinity", "nodeAffinity");
        assertThat(at(spec, "resources").getProperties()).containsKeys("limits", "requests");
        assertThat(at(spec, "env").getItems().getSchema().getProperties()).containsKeys("name", "value", "valueFrom");
    }

    @Test
    void statusFields() {
        assertThat(status.getProperties()).containsKeys("observedGeneration", "phase", "replicas", "readyReplicas",
                "bootstrapReplicas", "selector", "leader", "members", "settings", "settingsIndex", "currentImage",
                "podTemplateHash", "pendingOperation", "replacedMembers", "conditions");
        assertThat(at(status, "phase").getEnum()).extracting(n -> n.asText())
                .containsExactlyInAnyOrder("Creating", "Running", "Scaling", "Rolling", "Degraded");
        assertThat(at(status, "pendingOperation", "type").getEnum()).extracting(n -> n.asText())
                .containsExactlyInAnyOrder("ScaleUp", "ScaleDown", "Roll", "Replace");
        // A plain string, as before the step was an enum in the Java types: status an earlier operator wrote stays valid.
        assertThat(at(status, "pendingOperation", "step").getType()).isEqualTo("string");
        assertThat(at(status, "pendingOperation", "step").getEnum()).isNullOrEmpty();
        assertThat(at(status, "members").getItems().getSchema().getProperties())
                .containsKeys("id", "role", "ready", "readmitting", "notReadySince");
        assertThat(at(status, "conditions").getItems().getSchema().getProperties())
                .containsKeys("type", "status", "reason", "message", "lastTransitionTime", "observedGeneration");
    }
}
