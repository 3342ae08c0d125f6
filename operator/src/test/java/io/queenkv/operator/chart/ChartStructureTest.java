package io.queenkv.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.model.DesiredResources;

/**
 * What can be checked of the Helm chart without helm: its YAML files parse and hold the values the
 * templates use, every template is there, the RBAC rules are the least-privilege set, and the example
 * QueenKvCluster (examples/ and the chart README) is valid against the chart's CRD and builds the
 * operator's resources. The Go templates themselves are not evaluated here.
 */
class ChartStructureTest {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final List<String> TEMPLATES = List.of("_helpers.tpl", "deployment.yaml", "serviceaccount.yaml", "rbac.yaml", "NOTES.txt");

    static JsonNode chartYaml, values, example;
    static JSONSchemaProps specSchema;

    @BeforeAll
    static void load() throws IOException {
        chartYaml = YAML.readTree(ChartFiles.chart().resolve("Chart.yaml").toFile());
        values = YAML.readTree(ChartFiles.chart().resolve("values.yaml").toFile());
        example = YAML.readTree(ChartFiles.example().toFile());
        CustomResourceDefinition crd = Serialization.unmarshal(Files.readString(ChartFiles.chartCrd()), CustomResourceDefinition.class);
        specSchema = crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema().getProperties().get("spec");
    }

    @Test
    void chartYaml() throws IOException {
        assertThat(chartYaml.path("apiVersion").asText()).isEqualTo("v2");
        assertThat(chartYaml.path("name").asText()).isEqualTo("queen-kv-operator");
        assertThat(chartYaml.path("version").asText()).isEqualTo("0.1.0");
        assertThat(chartYaml.path("appVersion").asText()).isEqualTo("0.1.0");
        // The default image tag is the appVersion: keep it the project's version (without -SNAPSHOT).
        String pom = Files.readString(ChartFiles.repoRoot().resolve("pom.xml"));
        Matcher version = java.util.regex.Pattern.compile("<artifactId>queen-kv-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertThat(version.find()).isTrue();
        assertThat(version.group(1)).as("the project version in pom.xml vs. appVersion in Chart.yaml")
                .isIn(chartYaml.path("appVersion").asText(), chartYaml.path("appVersion").asText() + "-SNAPSHOT");
    }

    @Test
    void valuesHoldWhatTheTemplatesUse() {
        assertThat(values.at("/image/repository").isTextual()).isTrue();
        assertThat(values.at("/image/tag").isTextual()).isTrue();
        assertThat(values.at("/image/pullPolicy").asText()).isIn("IfNotPresent", "Always", "Never");
        assertThat(values.at("/watchNamespaces").isArray()).as("watchNamespaces: [] means every namespace").isTrue();
        assertThat(values.at("/watchNamespaces")).isEmpty();
        assertThat(values.at("/clusterScoped").isBoolean()).isTrue();
        assertThat(values.at("/logLevel").asText()).isIn("trace", "debug", "info", "warn", "error");
        assertThat(values.at("/serviceAccount/create").isBoolean()).isTrue();
        assertThat(values.at("/serviceAccount/name").isTextual()).isTrue();
        assertThat(values.at("/rbac/create").isBoolean()).isTrue();
        assertThat(values.at("/resources/requests/memory").isTextual()).isTrue();
        new Quantity(values.at("/resources/requests/memory").asText());
        new Quantity(values.at("/tmpSizeLimit").asText());
        assertThat(values.at("/nodeSelector").isObject()).isTrue();
        assertThat(values.at("/tolerations").isArray()).isTrue();
        assertThat(values.at("/affinity").isObject()).isTrue();
        assertThat(values.at("/nodeImage").asText()).as("values nodeImage and the example's image")
                .isEqualTo(example.at("/spec/image").asText());
    }

    @Test
    void operatorPodIsNonRootWithAReadOnlyRootFileSystem() throws IOException {
        assertThat(values.at("/podSecurityContext/runAsNonRoot").asBoolean()).isTrue();
        assertThat(values.at("/podSecurityContext/runAsUser").asLong()).isEqualTo(10001);
        assertThat(values.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
        assertThat(values.at("/securityContext/allowPrivilegeEscalation").asBoolean()).isFalse();
        assertThat(values.at("/securityContext/capabilities/drop")).extracting(JsonNode::asText).containsExactly("ALL");
        String deployment = template("deployment.yaml");
        assertThat(deployment)
                .contains("toYaml .Values.podSecurityContext", "toYaml .Values.securityContext")
                .contains("mountPath: /tmp", "emptyDir:")
                .contains("name: WATCH_NAMESPACES", "name: JAVA_OPTS", "-Djava.io.tmpdir=/tmp", "-Dorg.slf4j.simpleLogger.defaultLogLevel=")
                .contains("serviceAccountName: {{ include \"queen-kv-operator.serviceAccountName\" . }}");
    }

    @Test
    void everyTemplateIsThere() throws IOException {
        for (String t : TEMPLATES) assertThat(template(t)).as("templates/" + t).isNotBlank();
        assertThat(ChartFiles.chart().resolve("README.md")).exists();
    }

    /** The rules shared by the ClusterRole and the per-namespace Roles: exactly these, no wildcard. */
    @Test
    void rbacIsLeastPrivilege() throws IOException {
        String helpers = template("_helpers.tpl");
        int start = helpers.indexOf("{{- define \"queen-kv-operator.rules\" -}}");
        assertThat(start).isNotNegative();
        int end = helpers.indexOf("{{- end }}", start);
        String rulesYaml = helpers.substring(helpers.indexOf('\n', start) + 1, end);
        JsonNode rules = YAML.readTree(rulesYaml);

        Map<String, TreeSet<String>> granted = new LinkedHashMap<>();
        for (JsonNode rule : rules) {
            for (JsonNode group : rule.get("apiGroups"))
                for (JsonNode resource : rule.get("resources")) {
                    TreeSet<String> verbs = granted.computeIfAbsent(group.asText() + "/" + resource.asText(), k -> new TreeSet<>());
                    rule.get("verbs").forEach(v -> verbs.add(v.asText()));
                }
        }
        List<String> owned = List.of("create", "delete", "get", "list", "patch", "update", "watch");
        Map<String, List<String>> expected = new LinkedHashMap<>();
        for (String r : List.of("queenkvclusters", "queenkvclusters/status", "queenkvclusters/finalizers"))
            expected.put("queenkv.io/" + r, List.of("get", "list", "patch", "update", "watch"));
        expected.put("apps/statefulsets", owned);
        expected.put("/services", owned);
        expected.put("/configmaps", owned);
        expected.put("policy/poddisruptionbudgets", owned);
        expected.put("/pods", List.of("delete", "get", "list", "watch"));
        expected.put("/pods/eviction", List.of("create"));
        expected.put("/persistentvolumeclaims", List.of("delete", "get", "list", "watch"));
        // by name (the admin token, ca.crt; TlsMaterial writes <name>-ca and <name>-tls), never list, watch or delete
        expected.put("/secrets", List.of("create", "get", "patch", "update"));
        expected.put("cert-manager.io/certificates", List.of("create", "get", "patch", "update"));
        expected.put("/events", List.of("create", "patch"));
        expected.put("events.k8s.io/events", List.of("create", "patch"));
        assertThat(granted).hasSameSizeAs(expected);
        expected.forEach((resource, verbs) ->
                assertThat(granted.get(resource)).as(resource).containsExactlyElementsOf(verbs));
        assertThat(rulesYaml).doesNotContain("\"*\"");

        String rbac = template("rbac.yaml");
        assertThat(rbac).contains("kind: ClusterRole", "kind: ClusterRoleBinding", "kind: Role", "kind: RoleBinding",
                "range $ns := .Values.watchNamespaces");
        // Leases only through their own Role in the release's namespace, never in the shared rules.
        assertThat(rulesYaml).doesNotContain("coordination.k8s.io");
        assertThat(rbac).contains("include \"queen-kv-operator.leaseRules\"", "namespace: {{ .Release.Namespace }}");
    }

    /** The Lease Role grants exactly what JOSDK's leader election checks for, and the Deployment names the Lease. */
    @Test
    void leaderElectionHasItsLeaseAndNoMore() throws IOException {
        String helpers = template("_helpers.tpl");
        int start = helpers.indexOf("{{- define \"queen-kv-operator.leaseRules\" -}}");
        assertThat(start).isNotNegative();
        int end = helpers.indexOf("{{- end }}", start);
        JsonNode rules = YAML.readTree(helpers.substring(helpers.indexOf('\n', start) + 1, end));
        assertThat(rules).hasSize(1);
        JsonNode rule = rules.get(0);
        assertThat(rule.get("apiGroups")).extracting(JsonNode::asText).containsExactly("coordination.k8s.io");
        assertThat(rule.get("resources")).extracting(JsonNode::asText).containsExactly("leases");
        assertThat(rule.get("verbs")).extracting(JsonNode::asText)
                .containsExactlyInAnyOrder("get", "create", "update");
        String deployment = template("deployment.yaml");
        assertThat(deployment).contains(io.queenkv.operator.OperatorMain.LEASE_NAME, io.queenkv.operator.OperatorMain.LEASE_NAMESPACE,
                "fieldPath: metadata.namespace", "replicas: {{ .Values.replicaCount }}");
        assertThat(values.at("/replicaCount").asInt()).isEqualTo(1);
    }

    @Test
    void exampleIsValidAgainstTheCrd() {
        assertThat(example.path("apiVersion").asText()).isEqualTo(QueenKvCluster.API_VERSION);
        assertThat(example.path("kind").asText()).isEqualTo(QueenKvCluster.KIND);
        assertThat(violations(example)).isEmpty();
    }

    /** The validator below does catch what the API server would refuse. */
    @ParameterizedTest
    @ValueSource(strings = {"/spec/replicas=4", "/spec/replicas=9", "/spec/storage/size=ten", "/spec/settings/maxKeysPerCall=5000",
            "/spec/replica=3", "/spec/image=", "/metadata/name=a-name-that-is-much-longer-than-forty-characters"})
    void validatorRefusesBadClusters(String change) {
        JsonNode bad = example.deepCopy();
        String pointer = change.substring(0, change.indexOf('=')), value = change.substring(change.indexOf('=') + 1);
        ObjectNode parent = (ObjectNode) bad.at(pointer.substring(0, pointer.lastIndexOf('/')));
        String field = pointer.substring(pointer.lastIndexOf('/') + 1);
        if (value.matches("\\d+")) parent.put(field, Integer.parseInt(value));
        else parent.put(field, value);
        assertThat(violations(bad)).as(change).isNotEmpty();
    }

    @Test
    void exampleBuildsTheOperatorsResources() throws IOException {
        QueenKvCluster c = Serialization.unmarshal(Files.readString(ChartFiles.example()), QueenKvCluster.class);
        assertThat(c.getSpec().getReplicas()).isEqualTo(3);
        assertThat(c.getSpec().getImage()).isNotBlank();
        assertThat(c.getSpec().getStorage().getSize()).isNotBlank();
        assertThat(c.getSpec().getSettings()).isNotNull();
        assertThat(c.getSpec().getResources().getRequests()).containsKeys("cpu", "memory");

        c.getMetadata().setNamespace("team-a");
        DesiredResources desired = DesiredResources.of(c);
        assertThat(desired.statefulSet().getSpec().getReplicas()).isEqualTo(3);
        assertThat(desired.statefulSet().getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
                .isEqualTo(c.getSpec().getImage());
    }

    @Test
    void chartReadmeShowsTheExample() throws IOException {
        String readme = Files.readString(ChartFiles.chart().resolve("README.md"));
        Matcher block = java.util.regex.Pattern.compile("```yaml\\n(.*?)```", java.util.regex.Pattern.DOTALL).matcher(readme);
        List<String> blocks = new ArrayList<>();
        while (block.find()) blocks.add(block.group(1));
        assertThat(blocks).as("a yaml block in the chart README that is examples/queenkvcluster.yaml")
                .contains(Files.readString(ChartFiles.example()));
    }

    static String template(String name) throws IOException {
        Path p = ChartFiles.chart().resolve("templates").resolve(name);
        assertThat(p).as("templates/" + name).exists();
        return Files.readString(p);
    }

    /** What the API server would refuse: the spec against the CRD's schema, plus its CEL rules. */
    static List<String> violations(JsonNode cluster) {
        List<String> errors = new ArrayList<>();
        String name = cluster.at("/metadata/name").asText();
        if (!name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) errors.add("metadata.name: not a DNS label: " + name);
        if (name.length() > QueenKvCluster.MAX_NAME_LENGTH) errors.add("metadata.name: longer than " + QueenKvCluster.MAX_NAME_LENGTH);
        JsonNode spec = cluster.get("spec");
        if (spec == null) {
            errors.add("spec is required");
            return errors;
        }
        validate("spec", spec, specSchema, errors);
        // CEL: replicas odd (the rule in the CRD is "self % 2 == 1").
        assertThat(specSchema.getProperties().get("replicas").getXKubernetesValidations())
                .extracting(r -> r.getRule()).containsExactly("self % 2 == 1");
        if (spec.has("replicas") && spec.get("replicas").asInt() % 2 != 1) errors.add("spec.replicas: must be odd");
        return errors;
    }

    /** A structural-schema check: types, required and unknown fields, bounds, lengths, patterns and enums. */
    static void validate(String path, JsonNode v, JSONSchemaProps s, List<String> errors) {
        if (Boolean.TRUE.equals(s.getXKubernetesIntOrString())) {
            if (!v.isIntegralNumber() && !v.isTextual()) errors.add(path + ": not an integer or string");
            return;
        }
        String type = s.getType();
        if (type == null) return;
        switch (type) {
            case "object" -> {
                if (!v.isObject()) { errors.add(path + ": not an object"); return; }
                for (String r : s.getRequired() == null ? List.<String>of() : s.getRequired())
                    if (!v.has(r)) errors.add(path + "." + r + ": required");
                for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> f = it.next();
                    JSONSchemaProps p = s.getProperties() == null ? null : s.getProperties().get(f.getKey());
                    if (p == null && s.getAdditionalProperties() != null) p = s.getAdditionalProperties().getSchema();
                    if (p != null) validate(path + "." + f.getKey(), f.getValue(), p, errors);
                    else if (!Boolean.TRUE.equals(s.getXKubernetesPreserveUnknownFields()))
                        errors.add(path + "." + f.getKey() + ": unknown field (the API server would drop it)");
                }
            }
            case "array" -> {
                if (!v.isArray()) { errors.add(path + ": not an array"); return; }
                if (s.getMaxItems() != null && v.size() > s.getMaxItems()) errors.add(path + ": more than " + s.getMaxItems() + " items");
                for (int i = 0; i < v.size(); i++) if (s.getItems() != null && s.getItems().getSchema() != null)
                    validate(path + "[" + i + "]", v.get(i), s.getItems().getSchema(), errors);
            }
            case "integer", "number" -> {
                if ("integer".equals(type) ? !v.isIntegralNumber() : !v.isNumber()) { errors.add(path + ": not a " + type); return; }
                if (s.getMinimum() != null && v.asDouble() < s.getMinimum()) errors.add(path + ": below " + s.getMinimum());
                if (s.getMaximum() != null && v.asDouble() > s.getMaximum()) errors.add(path + ": above " + s.getMaximum());
            }
            case "string" -> {
                if (!v.isTextual()) { errors.add(path + ": not a string"); return; }
                String t = v.asText();
                if (s.getMinLength() != null && t.length() < s.getMinLength()) errors.add(path + ": shorter than " + s.getMinLength());
                if (s.getMaxLength() != null && t.length() > s.getMaxLength()) errors.add(path + ": longer than " + s.getMaxLength());
                if (s.getPattern() != null && !java.util.regex.Pattern.compile(s.getPattern()).matcher(t).find())
                    errors.add(path + ": does not match " + s.getPattern());
                if (s.getEnum() != null && !s.getEnum().isEmpty() && s.getEnum().stream().noneMatch(e -> e.asText().equals(t)))
                    errors.add(path + ": not one of " + s.getEnum());
            }
            case "boolean" -> { if (!v.isBoolean()) errors.add(path + ": not a boolean"); }
            default -> { }
        }
    }
}
