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
import io.queenkv.operator.model.StatefulSetModel;

/**
 * What can be checked of the Helm chart without helm: its YAML files parse and hold the values the
 * templates use, every template is there, the RBAC rules are the least-privilege set, and the example
 * QueenKvCluster (examples/ and the chart README) is valid against the chart's CRD and builds the
 * operator's resources. The Go templates themselves are not evaluated here.
 */
class ChartStructureTest {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final List<String> TEMPLATES = List.of("_helpers.tpl", "deployment.yaml", "serviceaccount.yaml", "rbac.yaml", "NOTES.txt",
            "podmonitor.yaml", "networkpolicy.yaml", "dashboard.yaml");

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
    void valuesHoldWhatTheTemplatesUse() throws IOException {
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
        assertThat(values.at("/nodeImage").asText()).as("empty: queen-kv-node:<appVersion>").isEmpty();
        assertThat(template("_helpers.tpl")).contains("{{- default (printf \"queen-kv-node:%s\" .Chart.AppVersion) .Values.nodeImage }}");
        assertThat("queen-kv-node:" + chartYaml.path("appVersion").asText()).as("the default node image and the example's")
                .isEqualTo(example.at("/spec/image").asText());
    }

    /**
     * Images are tagged with the release version by default: the chart's appVersion (the operator image's
     * default tag), the tag docker/pom.xml gives both images, and the example's node image are the
     * project version without -SNAPSHOT.
     */
    @Test
    void imagesAreTaggedWithTheReleaseVersion() throws IOException {
        String pom = Files.readString(ChartFiles.repoRoot().resolve("pom.xml"));
        Matcher project = java.util.regex.Pattern.compile("<artifactId>queen-kv-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertThat(project.find()).isTrue();
        String release = project.group(1).replaceFirst("-SNAPSHOT$", "");
        String images = Files.readString(ChartFiles.repoRoot().resolve("docker/pom.xml"));
        assertThat(images).contains("<queenkv.releaseVersion>" + release + "</queenkv.releaseVersion>")
                .contains("<image.tag>${queenkv.releaseVersion}</image.tag>")
                .contains("-t</argument>\n                <argument>${image.registry}queen-kv-node:${image.tag}</argument>")
                .contains("${image.registry}queen-kv-operator:${image.tag}</argument>");
        assertThat(chartYaml.path("appVersion").asText()).isEqualTo(release);
        assertThat(template("_helpers.tpl")).contains("(default .Chart.AppVersion .Values.image.tag)");
        assertThat(values.at("/image/tag").asText()).as("empty: the appVersion").isEmpty();
        assertThat(example.at("/spec/image").asText()).isEqualTo("queen-kv-node:" + release);
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
        // a removed member's claim is deleted; spec.backup's claim is created once
        expected.put("/persistentvolumeclaims", List.of("create", "delete", "get", "list", "watch"));
        expected.put("batch/cronjobs", owned);
        // by name (the admin token, ca.crt; TlsMaterial writes <name>-ca and <name>-tls), never list, watch or delete
        expected.put("/secrets", List.of("create", "get", "patch", "update"));
        expected.put("cert-manager.io/certificates", owned);
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
                .containsExactlyInAnyOrder("get", "create", "update", "patch");
        String deployment = template("deployment.yaml");
        assertThat(deployment).contains(io.queenkv.operator.OperatorMain.LEASE_NAME, io.queenkv.operator.OperatorMain.LEASE_NAMESPACE,
                "fieldPath: metadata.namespace", "replicas: {{ .Values.replicaCount }}");
        assertThat(values.at("/replicaCount").asInt()).isEqualTo(1);
    }

    /** Every new option is off by default; each template renders nothing unless its option is on. */
    @Test
    void monitoringAndNetworkPoliciesAreOptIn() throws IOException {
        assertThat(values.at("/metrics/podMonitor/enabled").asBoolean(true)).isFalse();
        assertThat(values.at("/metrics/dashboard/enabled").asBoolean(true)).isFalse();
        assertThat(values.at("/networkPolicy/enabled").asBoolean(true)).isFalse();
        assertThat(values.at("/networkPolicy/httpFrom")).isEmpty();
        assertThat(values.at("/networkPolicy/namespaces")).isEmpty();
        assertThat(template("podmonitor.yaml")).startsWith("{{- if .Values.metrics.podMonitor.enabled }}");
        assertThat(template("networkpolicy.yaml")).startsWith("{{- if .Values.networkPolicy.enabled }}");
        assertThat(template("dashboard.yaml")).startsWith("{{- if .Values.metrics.dashboard.enabled }}");
    }

    /** The labels the chart selects node pods by are the ones the operator puts on them (Labels.of). */
    @Test
    void nodePodSelectorIsTheOperatorsLabels() throws IOException {
        JsonNode selector = YAML.readTree(define("queen-kv-operator.nodePodLabels"));
        Map<String, String> labels = io.queenkv.operator.model.Labels.of("kv");
        labels.remove(io.queenkv.operator.model.Labels.INSTANCE); // the cluster's name: every cluster is selected
        Map<String, String> chart = new LinkedHashMap<>();
        selector.fields().forEachRemaining(f -> chart.put(f.getKey(), f.getValue().asText()));
        assertThat(chart).isEqualTo(labels);
        assertThat(template("networkpolicy.yaml")).contains("include \"queen-kv-operator.nodePodLabels\"");
        assertThat(template("podmonitor.yaml")).contains("include \"queen-kv-operator.nodePodLabels\"");
    }

    /** The backup jobs' pods carry the labels the NetworkPolicy lets reach the nodes' HTTP port (Labels.backup). */
    @Test
    void backupPodSelectorIsTheOperatorsLabels() throws IOException {
        JsonNode selector = YAML.readTree(define("queen-kv-operator.backupPodLabels"));
        Map<String, String> chart = new LinkedHashMap<>();
        selector.fields().forEachRemaining(f -> chart.put(f.getKey(), f.getValue().asText()));
        assertThat(io.queenkv.operator.model.Labels.backup("kv")).containsAllEntriesOf(chart);
        assertThat(chart).doesNotContainKey(io.queenkv.operator.model.Labels.INSTANCE);
        String np = template("networkpolicy.yaml");
        assertThat(np.indexOf("include \"queen-kv-operator.backupPodLabels\"")).as("in the HTTP rule").isGreaterThan(np.indexOf("port: raft"));
    }

    /**
     * The NetworkPolicy: node pods take the Raft port only from node pods, the HTTP port from the operator's
     * pods in the release's namespace and networkPolicy.httpFrom; one policy per namespace of
     * networkPolicy.namespaces or watchNamespaces, and a refusal when there is none.
     */
    @Test
    void networkPolicyOpensRaftToMembersAndHttpToTheOperator() throws IOException {
        String np = template("networkpolicy.yaml");
        assertThat(np).contains("kind: NetworkPolicy", "policyTypes:\n    - Ingress\n",
                "port: " + io.queenkv.operator.model.Model.RAFT_PORT_NAME + "\n",
                "port: " + io.queenkv.operator.model.Model.HTTP_PORT_NAME + "\n",
                "kubernetes.io/metadata.name: {{ $.Release.Namespace }}", "include \"queen-kv-operator.selectorLabels\" $",
                "with $.Values.networkPolicy.httpFrom", "range $ns := splitList \",\" (include \"queen-kv-operator.networkPolicyNamespaces\" $)");
        assertThat(np).as("egress stays open").doesNotContain("Egress");
        // The raft rule comes first and names only node pods.
        int raft = np.indexOf("port: raft"), http = np.indexOf("port: http");
        assertThat(raft).isPositive().isLessThan(http);
        assertThat(np.substring(0, raft)).doesNotContain("namespaceSelector", ".Values.networkPolicy.httpFrom");
        assertThat(define("queen-kv-operator.networkPolicyNamespaces"))
                .contains("default .Values.watchNamespaces .Values.networkPolicy.namespaces");
        assertThat(define("queen-kv-operator.validate")).contains("networkPolicy.enabled needs networkPolicy.namespaces when watchNamespaces is empty");
        // The operator's container ports are the ones the policies and monitors name.
        assertThat(template("deployment.yaml")).contains("- name: health\n              containerPort: {{ .Values.healthPort }}");
    }

    @Test
    void podMonitorsScrapeTheOperatorsHealthPortAndTheNodesHttpPort() throws IOException {
        String pm = template("podmonitor.yaml");
        assertThat(pm).contains("apiVersion: monitoring.coreos.com/v1", "kind: PodMonitor",
                "- port: health\n      path: /metrics", "- port: " + io.queenkv.operator.model.Model.HTTP_PORT_NAME + "\n      path: /metrics",
                "scheme: {{ $pm.nodes.scheme }}", "with $pm.nodes.tlsConfig", "with $pm.nodes.authorization",
                "any: true", "toYaml .Values.watchNamespaces");
        assertThat(values.at("/metrics/podMonitor/nodes/scheme").asText()).as("TLS is on by default").isEqualTo("https");
        assertThat(values.at("/metrics/podMonitor/operator/enabled").asBoolean()).isTrue();
        assertThat(values.at("/metrics/podMonitor/nodes/enabled").asBoolean()).isTrue();
    }

    /**
     * values.schema.json: every value of values.yaml is declared (so is nothing else), the objects the chart
     * reads key by key refuse unknown keys (a typo fails helm lint --strict and helm install), and the
     * defaults are valid against it.
     */
    @Test
    void schemaDeclaresEveryValueAndRefusesUnknownKeys() throws IOException {
        JsonNode schema = new ObjectMapper().readTree(ChartFiles.chart().resolve("values.schema.json").toFile());
        assertThat(schema.path("additionalProperties").isBoolean() && !schema.path("additionalProperties").asBoolean())
                .as("additionalProperties false at the top").isTrue();
        List<String> problems = new ArrayList<>();
        schemaCheck("", values, schema, problems);
        TreeSet<String> declared = new TreeSet<>();
        schema.path("properties").fieldNames().forEachRemaining(declared::add);
        TreeSet<String> inValues = new TreeSet<>();
        values.fieldNames().forEachRemaining(inValues::add);
        declared.remove("global"); // Helm's, when the chart is a subchart
        assertThat(declared).as("top-level values in the schema and in values.yaml").isEqualTo(inValues);
        assertThat(problems).isEmpty();
        // The checker is not vacuous.
        ObjectNode typo = values.deepCopy();
        ((ObjectNode) typo.get("metrics").get("podMonitor")).put("enabeld", true);
        typo.put("logLevel", "verbose");
        ((ObjectNode) typo.get("networkPolicy")).put("enabled", "yes");
        List<String> refused = new ArrayList<>();
        schemaCheck("", typo, schema, refused);
        assertThat(refused).hasSize(3);
    }

    /** The subset of JSON Schema values.schema.json uses: type, properties, additionalProperties false, enum, items. */
    static void schemaCheck(String path, JsonNode v, JsonNode s, List<String> problems) {
        JsonNode type = s.path("type");
        List<String> types = new ArrayList<>();
        if (type.isArray()) type.forEach(t -> types.add(t.asText()));
        else if (type.isTextual()) types.add(type.asText());
        boolean typeOk = types.isEmpty() || types.stream().anyMatch(t -> switch (t) {
            case "object" -> v.isObject();
            case "array" -> v.isArray();
            case "string" -> v.isTextual();
            case "boolean" -> v.isBoolean();
            case "integer" -> v.isIntegralNumber();
            case "number" -> v.isNumber();
            default -> true;
        });
        if (!typeOk) {
            problems.add(path + ": " + v + " is not " + types);
            return;
        }
        if (s.has("enum")) {
            boolean found = false;
            for (JsonNode e : s.get("enum")) found |= e.equals(v);
            if (!found) problems.add(path + ": " + v + " not in " + s.get("enum"));
        }
        if (v.isObject() && s.has("properties")) {
            assertThat(s.path("additionalProperties").asBoolean(true)).as(path + " refuses unknown keys").isFalse();
            v.fields().forEachRemaining(f -> {
                JsonNode p = s.get("properties").get(f.getKey());
                if (p == null) problems.add(path + "/" + f.getKey() + ": not in the schema");
                else schemaCheck(path + "/" + f.getKey(), f.getValue(), p, problems);
            });
        }
        if (v.isArray() && s.has("items")) for (int i = 0; i < v.size(); i++) schemaCheck(path + "[" + i + "]", v.get(i), s.get("items"), problems);
    }

    /** NOTES.txt prints no placeholder a shell would take for a redirection (<namespace>). */
    @Test
    void notesHaveNoPlaceholders() throws IOException {
        String notes = template("NOTES.txt");
        assertThat(notes).doesNotContainPattern("<[a-zA-Z][-a-zA-Z. ]*>");
        assertThat(notes).as("the heredoc's end at the start of its line, so that it ends when pasted").contains("<<'YAML'\n", "\nYAML\n");
        assertThat(notes).contains("{{ $ns }}", "squote");
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
        var statefulSet = StatefulSetModel.build(c);
        assertThat(statefulSet.getSpec().getReplicas()).isEqualTo(3);
        assertThat(statefulSet.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
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

    /** The body of a named template of _helpers.tpl. */
    static String define(String name) throws IOException {
        String helpers = template("_helpers.tpl");
        int start = helpers.indexOf("{{- define \"" + name + "\" -}}");
        assertThat(start).as(name).isNotNegative();
        return helpers.substring(helpers.indexOf('\n', start) + 1, nextEnd(helpers, start));
    }

    /** The {{- end }} that closes the define at {@code start} (defines here hold ifs and ranges). */
    private static int nextEnd(String helpers, int start) {
        int depth = 0;
        Matcher m = java.util.regex.Pattern.compile("\\{\\{-?\\s*(define|if|range|with|end)\\b").matcher(helpers);
        m.region(start, helpers.length());
        while (m.find()) {
            if (m.group(1).equals("end")) { if (--depth == 0) return m.start(); }
            else depth++;
        }
        throw new IllegalStateException("no end");
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
