package io.queenkv.node.http;

import static io.queenkv.node.http.Wire.batch;
import static io.queenkv.node.http.Wire.fieldNames;
import static io.queenkv.node.http.Wire.json;
import static io.queenkv.node.http.Wire.ok;
import static io.queenkv.node.http.Wire.put;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.testing.LocalNode;

/** {@code /healthz}, {@code /readyz}, {@code /metrics}, {@code /api/v1/cluster} (API.md §4). */
class OperationsEndpointsTest {
    @TempDir
    static Path dir;
    static LocalNode node;

    @BeforeAll
    static void start() throws IOException {
        node = LocalNode.start(dir, Map.of());
    }

    @AfterAll
    static void stop() throws IOException {
        if (node != null) node.close();
    }

    @Test
    void healthzAndReadyzAnswer200WithJson() {
        for (String path : new String[] {"/healthz", "/readyz"}) {
            HttpResponse<String> r = node.get(path);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type")).get().asString().startsWith("application/json");
            assertThat(json(r).isObject()).isTrue();
            assertThat(json(r).get("status").asText()).isEqualTo("ok");
        }
    }

    @Test
    void versionNamesThisBuildAndItsRuntime() {
        HttpResponse<String> r = node.get("/version");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode v = json(r);
        assertThat(fieldNames(v)).containsExactlyInAnyOrder("version", "api", "java");
        assertThat(v.get("version").asText()).matches("\\d+\\.\\d+\\.\\d+\\S*");
        assertThat(v.get("api").asText()).isEqualTo("v1");
        assertThat(v.get("java").asText()).isEqualTo(System.getProperty("java.runtime.version"));
    }

    @Test
    void clusterHasExactlyTheFieldsOfTheContract() {
        ok(node, put("cluster", "k", "1"));
        HttpResponse<String> r = node.get("/api/v1/cluster");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).get().asString().startsWith("application/json");
        JsonNode c = json(r);
        assertThat(fieldNames(c)).containsExactlyInAnyOrder("nodeId", "clusterId", "incarnation", "membership", "role", "term",
                "leaderId", "members", "readmitting", "commitIndex", "appliedIndex", "settings", "settingsIndex");
        assertThat(c.get("nodeId").asText()).isEqualTo("n1");
        // A lone node without QUEEN_KV_CLUSTER_ID generates its cluster id and incarnation on first start.
        assertThat(c.get("clusterId").asText()).matches("[0-9a-f-]{36}");
        assertThat(c.get("incarnation").asText()).matches("[0-9a-f-]{36}").isNotEqualTo(c.get("clusterId").asText());
        assertThat(c.get("membership").asText()).isEqualTo("member");
        assertThat(c.get("readmitting").isArray()).isTrue();
        assertThat(c.get("readmitting").size()).isZero();
        assertThat(c.get("role").asText()).isEqualTo("leader");
        assertThat(c.get("term").isIntegralNumber()).isTrue();
        assertThat(c.get("term").asLong()).isPositive();
        assertThat(c.get("leaderId").asText()).isEqualTo("n1");
        assertThat(c.get("members").size()).isEqualTo(1);
        JsonNode m = c.get("members").get(0);
        assertThat(fieldNames(m)).containsExactlyInAnyOrder("id", "raftAddress", "httpAddress", "role");
        assertThat(m.get("id").asText()).isEqualTo("n1");
        assertThat(m.get("role").asText()).isEqualTo("leader");
        assertThat(m.get("raftAddress").asText()).matches(".+:\\d+");
        assertThat(m.get("httpAddress").asText()).endsWith(":" + node.node.httpPort());
        assertThat(c.get("commitIndex").isIntegralNumber()).isTrue();
        assertThat(c.get("appliedIndex").isIntegralNumber()).isTrue();
        assertThat(c.get("appliedIndex").asLong()).isPositive().isLessThanOrEqualTo(c.get("commitIndex").asLong());
        assertThat(c.get("settingsIndex").asLong()).isPositive().isLessThanOrEqualTo(c.get("appliedIndex").asLong());
        JsonNode s = c.get("settings");
        assertThat(s.get("maxOpsPerCall").asInt()).isEqualTo(256);
        assertThat(s.get("maxKeysPerCall").asInt()).isEqualTo(1024);
        assertThat(s.get("maxValueBytes").asInt()).isEqualTo(65_536);
        assertThat(s.get("maxBodyBytes").asLong()).isEqualTo(32L * 1024 * 1024);
        assertThat(s.get("writeRate").asInt()).isEqualTo(100);
        assertThat(s.get("readRate").asInt()).isEqualTo(200);
    }

    @Test
    void metricsArePrometheusTextWithRequestCountersAndRaftAndStoreGauges() {
        ok(node, put("metrics", "k1", "\"abc\""), put("metrics", "k2", "12345"));
        long recordsBefore = gauge(node.get("/metrics").body(), "queen_kv_idempotency_records");
        assertThat(batch(node, "[" + put("metrics", "k3", "1") + "]", Map.of("Idempotency-Key", "metrics-1")).statusCode()).isEqualTo(200);
        batch(node, "garbage"); // a refused call
        node.get("/api/v1/kv/metrics/k1");

        HttpResponse<String> r = node.get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).get().asString().startsWith("text/plain");
        String text = r.body();
        assertThat(text).contains("# TYPE ");

        assertThat(counterLine(text, "POST", "/api/v1/kv", "ok")).isPositive();
        assertThat(counterLine(text, "POST", "/api/v1/kv", "refused")).isPositive();
        assertThat(text).containsPattern("queen_kv_http_requests\\w*\\{[^}]*route=\"[^\"]*kv/\\{ns}[^\"]*\"");

        long commit = gauge(text, "queen_kv_raft_commit_index");
        long applied = gauge(text, "queen_kv_raft_applied_index");
        assertThat(commit).isPositive();
        assertThat(applied).isPositive().isLessThanOrEqualTo(commit);
        assertThat(gauge(text, "queen_kv_keys")).isGreaterThanOrEqualTo(2);
        assertThat(gauge(text, "queen_kv_value_bytes")).isGreaterThanOrEqualTo("\"abc\"".length() + "12345".length());
        assertThat(gauge(text, "queen_kv_idempotency_records")).as("the call with a key is recorded").isEqualTo(recordsBefore + 1);
    }

    /** The count of {@code queen_kv_http_requests} for a method, route and outcome, summed over statuses. */
    private static long counterLine(String text, String method, String route, String outcome) {
        Pattern line = Pattern.compile("^queen_kv_http_requests\\w*_count\\{([^}]*)} ([0-9.eE+]+)$", Pattern.MULTILINE);
        Matcher m = line.matcher(text);
        long total = 0;
        while (m.find()) {
            String labels = m.group(1);
            if (labels.contains("method=\"" + method + "\"") && labels.contains("route=\"" + route + "\"")
                    && labels.contains("outcome=\"" + outcome + "\""))
                total += (long) Double.parseDouble(m.group(2));
        }
        return total;
    }

    private static long gauge(String text, String name) {
        Matcher m = Pattern.compile("^" + name + "(\\{[^}]*})? ([0-9.eE+-]+)$", Pattern.MULTILINE).matcher(text);
        assertThat(m.find()).as("gauge %s in:%n%s", name, text).isTrue();
        return (long) Double.parseDouble(m.group(2));
    }
}
