package io.queenkv.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.queenkv.operator.OperatorMain;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;

/**
 * The Grafana dashboard (charts/queen-kv-operator/dashboards/queen-kv.json) asks only for series that exist:
 * every metric name in a panel's or a variable's query is one the nodes export (NodeMetrics, read from its
 * source and registered the same way in a Micrometer Prometheus registry) or one the operator exports (the
 * registry {@link OperatorMain#metricsRegistry()} builds, scraped after a real JOSDK operator reconciled one
 * resource that succeeds and one that fails), and every label it groups by, matches or prints is one those
 * series carry or one the chart's PodMonitors and Prometheus add. {@link #checkerRefusesWhatDoesNotExist}
 * shows the check does fail.
 */
@EnableKubernetesMockClient(crud = true)
class ChartDashboardTest {
    static KubernetesClient client;
    static final ObjectMapper JSON = new ObjectMapper();
    /** What Prometheus adds to a PodMonitor's targets, and what the chart's PodMonitors add (templates/podmonitor.yaml). */
    static final Set<String> TARGET_LABELS = Set.of("namespace", "pod", "container", "endpoint", "job", "instance",
            "queenkv_cluster", "queenkv_component");
    static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
            "unless", "bool", "offset", "inf", "nan");
    static final Pattern MODIFIER = Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
    static final Pattern MATCHERS = Pattern.compile("\\{([^}]*)}");
    static final Pattern MATCHER_LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)");
    static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
    static final Pattern IDENT = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");
    static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((.*),\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)$");

    static JsonNode dashboard;
    /** Metric name (as scraped, with _count, _sum, _bucket...) to the labels its series carry. */
    static final Map<String, Set<String>> known = new TreeMap<>();

    @BeforeAll
    static void load() throws Exception {
        dashboard = JSON.readTree(ChartFiles.chart().resolve("dashboards/queen-kv.json").toFile());
        known.putAll(scraped(nodeRegistry().scrape()));
        known.putAll(scraped(operatorScrape()));
    }

    @Test
    void everyQueryAsksForSeriesThatExist() {
        List<String> problems = new ArrayList<>();
        int queries = 0;
        for (Query q : queries()) {
            queries++;
            problems.addAll(check(q).stream().map(p -> q.where() + ": " + p).toList());
        }
        assertThat(queries).as("queries in the dashboard").isGreaterThan(20);
        assertThat(problems).as("known metrics and their labels: %s", known).isEmpty();
    }

    @Test
    void theNodeAndOperatorMetricsThePanelsMeantAreThere() {
        Set<String> used = new TreeSet<>();
        for (Query q : queries()) used.addAll(metricNames(q.expr()));
        // What the issue asks the dashboard to show, by the names the nodes and the operator export.
        assertThat(used).contains("queen_kv_http_requests_seconds_count", "queen_kv_http_requests_seconds_sum",
                "queen_kv_raft_commit_index", "queen_kv_raft_applied_index", "queen_kv_raft_leader", "queen_kv_raft_term",
                "queen_kv_keys", "queen_kv_value_bytes", "queen_kv_raft_forwarded_calls",
                "operator_sdk_reconciliations_started_total", "operator_sdk_reconciliations_failed_total");
        // Every gauge and counter NodeMetrics registers has a panel.
        for (String node : nodeMetricSource().gauges()) assertThat(used).as("a panel on " + node).contains(node);
        for (String node : nodeMetricSource().counters()) assertThat(used).as("a panel on " + node).contains(node + "_total");
    }

    @Test
    void panelsAreWellFormed() {
        Set<Integer> ids = new HashSet<>();
        for (JsonNode p : panels()) {
            assertThat(ids.add(p.path("id").asInt())).as("panel id %s unique", p.path("id")).isTrue();
            assertThat(p.path("title").asText()).isNotBlank();
            JsonNode pos = p.path("gridPos");
            assertThat(pos.path("x").asInt() + pos.path("w").asInt()).as(p.path("title").asText()).isLessThanOrEqualTo(24);
            if (p.path("type").asText().equals("row")) continue;
            assertThat(p.path("datasource").path("uid").asText()).as("%s uses the dashboard's data source variable", p.path("title"))
                    .isEqualTo("${datasource}");
            assertThat(p.path("targets")).as(p.path("title").asText()).isNotEmpty();
        }
        assertThat(dashboard.path("uid").asText()).isEqualTo("queen-kv");
        assertThat(dashboard.at("/templating/list/0/type").asText()).isEqualTo("datasource");
    }

    @Test
    void theConfigMapCarriesItForTheGrafanaSidecar() throws IOException {
        String template = Files.readString(ChartFiles.chart().resolve("templates/dashboard.yaml"));
        assertThat(template).contains(".Values.metrics.dashboard.enabled", ".Files.Get \"dashboards/queen-kv.json\"", "kind: ConfigMap");
        JsonNode values = ChartStructureTest.YAML.readTree(ChartFiles.chart().resolve("values.yaml").toFile());
        assertThat(values.at("/metrics/dashboard/enabled").asBoolean()).as("off by default").isFalse();
        assertThat(values.at("/metrics/dashboard/labels/grafana_dashboard").asText()).isEqualTo("1");
        // The labels the node panels select are the ones the nodes' PodMonitor adds.
        String podMonitor = Files.readString(ChartFiles.chart().resolve("templates/podmonitor.yaml"));
        assertThat(podMonitor).contains("targetLabel: queenkv_cluster", "__meta_kubernetes_pod_label_app_kubernetes_io_instance",
                "targetLabel: queenkv_component", "replacement: operator", "replacement: node");
    }

    /** The check above is not vacuous: each of these is a query on a series that does not exist. */
    @ParameterizedTest
    @ValueSource(strings = {
            "sum(rate(queen_kv_http_request_seconds_count[5m]))", // a typo in the metric name
            "histogram_quantile(0.99, sum by (le) (rate(queen_kv_http_requests_seconds_bucket[5m])))", // the nodes publish no buckets
            "sum by (rout) (rate(queen_kv_http_requests_seconds_count[5m]))", // a label it does not have
            "queen_kv_keys{tenant=\"a\"}", // ditto, in a matcher
            "rate(operator_sdk_reconciliations_total[5m])", // not a JOSDK name
            "jvm_gc_pause_seconds_count", // a JVM meter the operator does not bind
            "queen_kv_raft_term"})
    void checkerRefusesWhatDoesNotExist(String expr) {
        List<String> problems = check(new Query("test", expr, ""));
        if (expr.equals("queen_kv_raft_term")) assertThat(problems).as("a real one passes").isEmpty();
        else assertThat(problems).as(expr).isNotEmpty();
    }

    @Test
    void checkerRefusesALegendLabelThatIsNotThere() {
        assertThat(check(new Query("test", "queen_kv_keys", "{{pod}}"))).isEmpty();
        assertThat(check(new Query("test", "queen_kv_keys", "{{pood}}"))).isNotEmpty();
        assertThat(check(new Query("test", "label_values(queen_kv_raft_term, clutser)", ""))).isNotEmpty();
    }

    // ---- the check -----------------------------------------------------------------------------------

    record Query(String where, String expr, String legend) {}

    static List<JsonNode> panels() {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode p : dashboard.path("panels")) {
            all.add(p);
            p.path("panels").forEach(all::add); // the panels of a collapsed row
        }
        return all;
    }

    static List<Query> queries() {
        List<Query> qs = new ArrayList<>();
        for (JsonNode p : panels())
            for (JsonNode t : p.path("targets"))
                qs.add(new Query("panel \"" + p.path("title").asText() + "\" " + t.path("refId").asText(), t.path("expr").asText(),
                        t.path("legendFormat").asText()));
        for (JsonNode v : dashboard.at("/templating/list")) {
            if (!v.path("type").asText().equals("query")) continue;
            String query = v.path("query").isObject() ? v.path("query").path("query").asText() : v.path("query").asText();
            qs.add(new Query("variable $" + v.path("name").asText(), query, ""));
        }
        return qs;
    }

    static List<String> check(Query q) {
        List<String> problems = new ArrayList<>();
        String expr = q.expr();
        Set<String> labels = new TreeSet<>();
        Matcher lv = LABEL_VALUES.matcher(expr.trim());
        if (lv.matches()) {
            expr = lv.group(1);
            labels.add(lv.group(2));
        }
        Set<String> metrics = metricNames(expr);
        if (metrics.isEmpty()) problems.add("no metric in " + expr);
        labels.addAll(labelNames(expr));
        Matcher legend = LEGEND_LABEL.matcher(q.legend());
        while (legend.find()) labels.add(legend.group(1));
        Set<String> available = new TreeSet<>(TARGET_LABELS);
        for (String m : metrics) {
            if (!known.containsKey(m)) problems.add("no such metric: " + m);
            else available.addAll(known.get(m));
        }
        for (String l : labels) if (!available.contains(l)) problems.add("no series of " + metrics + " has the label " + l);
        return problems;
    }

    /** The metric names of a PromQL expression: identifiers that are not functions, keywords, label names or strings. */
    static Set<String> metricNames(String expr) {
        String e = STRING.matcher(expr).replaceAll("\"\"");
        e = MATCHERS.matcher(e).replaceAll(" ");
        e = e.replaceAll("\\[[^]]*]", " ");
        e = MODIFIER.matcher(e).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENT.matcher(e);
        while (m.find()) {
            String id = m.group();
            if (KEYWORDS.contains(id)) continue;
            if (e.substring(m.end()).matches("(?s)\\s*\\(.*")) continue; // a function or an aggregation
            names.add(id);
        }
        return names;
    }

    /** Label names in matchers and in by/without/on/ignoring/group_x lists. */
    static Set<String> labelNames(String expr) {
        String e = STRING.matcher(expr).replaceAll("\"\"");
        Set<String> labels = new TreeSet<>();
        Matcher braces = MATCHERS.matcher(e);
        while (braces.find()) {
            Matcher l = MATCHER_LABEL.matcher(braces.group(1));
            while (l.find()) labels.add(l.group(1));
        }
        Matcher mod = MODIFIER.matcher(e);
        while (mod.find())
            for (String l : mod.group(2).split(",")) if (!l.isBlank()) labels.add(l.trim());
        return labels;
    }

    /** The Prometheus text format: metric name to the label names of its series. */
    static Map<String, Set<String>> scraped(String text) {
        Map<String, Set<String>> names = new LinkedHashMap<>();
        Pattern line = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+\\S+.*$");
        for (String l : text.split("\n")) {
            if (l.startsWith("#") || l.isBlank()) continue;
            Matcher m = line.matcher(l);
            if (!m.matches()) continue;
            Set<String> labels = names.computeIfAbsent(m.group(1), k -> new TreeSet<>());
            if (m.group(3) != null) {
                Matcher lm = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"").matcher(m.group(3));
                while (lm.find()) labels.add(lm.group(1));
            }
        }
        return names;
    }

    // ---- what the nodes export -----------------------------------------------------------------------

    record NodeMetricSource(List<String> gauges, List<String> counters, List<String> timers, List<String> timerTags) {}

    /**
     * NodeMetrics' meters, read from its source (its constructor needs a running Raft group; the operator's
     * tests have the node's classes but not Ratis).
     */
    static NodeMetricSource nodeMetricSource() {
        try {
            String src = Files.readString(ChartFiles.repoRoot().resolve("node/src/main/java/io/queenkv/node/http/NodeMetrics.java"));
            return new NodeMetricSource(all(src, "Gauge\\.builder\\(\"([a-z_]+)\""), all(src, "FunctionCounter\\.builder\\(\"([a-z_]+)\""),
                    all(src, "Timer\\.builder\\(\"([a-z_]+)\""),
                    all(src, "\\.tag\\(\"([a-z_]+)\""));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The same meters in the same kind of registry, so their Prometheus names come out as the node's do. */
    static PrometheusMeterRegistry nodeRegistry() {
        NodeMetricSource src = nodeMetricSource();
        assertThat(src.gauges()).as("NodeMetrics' gauges").hasSizeGreaterThanOrEqualTo(7);
        assertThat(src.timers()).as("NodeMetrics' timer").containsExactly("queen_kv_http_requests");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        for (String g : src.gauges()) Gauge.builder(g, () -> 1).register(registry);
        for (String c : src.counters()) FunctionCounter.builder(c, src, x -> 1).register(registry);
        for (String t : src.timers()) {
            Timer.Builder b = Timer.builder(t).publishPercentileHistogram(false);
            for (String tag : src.timerTags()) b = b.tag(tag, "x");
            b.register(registry).record(Duration.ofMillis(3));
        }
        return registry;
    }

    private static List<String> all(String text, String regex) {
        List<String> found = new ArrayList<>();
        Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) found.add(m.group(1));
        return found;
    }

    // ---- what the operator exports -------------------------------------------------------------------

    /** Reconciles "ok" and fails on "fails", so that both JOSDK's success and its failure meters exist. */
    static final class Probe implements Reconciler<QueenKvCluster> {
        @Override
        public UpdateControl<QueenKvCluster> reconcile(QueenKvCluster resource, Context<QueenKvCluster> context) {
            if (resource.getMetadata().getName().equals("fails")) throw new IllegalStateException("fails on purpose");
            return UpdateControl.noUpdate();
        }
    }

    /** /metrics of a real JOSDK operator (on the mock API server) with the registry and metrics the operator's main uses. */
    static String operatorScrape() throws Exception {
        Operator operator = null;
        try {
            client.apiextensions().v1().customResourceDefinitions().load(ChartFiles.checkedInCrd().toFile()).create();
            PrometheusMeterRegistry registry = OperatorMain.metricsRegistry();
            operator = new Operator(o -> OperatorMain.configure(o, client).withCloseClientOnStop(false)
                    .withSSABasedCreateUpdateMatchForDependentResources(false).withUseSSAToPatchPrimaryResource(false)
                    .withMetrics(MicrometerMetrics.newPerResourceCollectingMicrometerMetricsBuilder(registry).build()));
            operator.register(new Probe(), o -> o.settingNamespaces("prod"));
            operator.start();
            for (String name : List.of("ok", "fails")) {
                QueenKvCluster c = new QueenKvCluster();
                c.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("prod").build());
                QueenKvClusterSpec spec = new QueenKvClusterSpec();
                spec.setReplicas(3);
                spec.setImage("queen-kv-node:0.1.0");
                c.setSpec(spec);
                client.resources(QueenKvCluster.class).inNamespace("prod").resource(c).create();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                String s = registry.scrape();
                return s.contains("operator_sdk_reconciliations_success_total") && s.contains("operator_sdk_reconciliations_failed_total")
                        && s.contains("operator_sdk_controllers_execution_reconcile_seconds_count");
            });
            return registry.scrape();
        } finally {
            if (operator != null) operator.stop();
        }
    }
}
