package io.queenkv.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;

/**
 * The operator's health and metrics port on a real JOSDK operator (against the mock API server):
 * not live before it starts, live and ready once it runs, and its reconciles counted at /metrics.
 */
@EnableKubernetesMockClient(crud = true)
class OperatorEndpointsTest {
    KubernetesClient client;
    Operator operator;
    OperatorEndpoints endpoints;
    final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        if (endpoints != null) endpoints.close();
        if (operator != null) operator.stop();
    }

    @Test
    void healthReadinessAndReconcileMetrics() throws Exception {
        client.apiextensions().v1().customResourceDefinitions().load(QueenKvReconcilerTest.crd().toFile()).create();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        operator = new Operator(o -> OperatorMain.configure(o, client).withCloseClientOnStop(false)
                .withSSABasedCreateUpdateMatchForDependentResources(false).withUseSSAToPatchPrimaryResource(false)
                .withMetrics(MicrometerMetrics.newPerResourceCollectingMicrometerMetricsBuilder(registry).build()));
        List<String> calls = new ArrayList<>();
        operator.register(new QueenKvReconciler(new FakeNodeAdmin(calls), QueenKvReconciler.Timing.production(), Clock.systemUTC()),
                o -> o.settingNamespaces("prod"));
        endpoints = new OperatorEndpoints(0, operator.getRuntimeInfo(), registry);
        assertThat(get("/healthz").statusCode()).as("before the operator started").isEqualTo(503);
        assertThat(get("/readyz").statusCode()).isEqualTo(503);

        operator.start();
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> get("/readyz").statusCode() == 200);

        QueenKvCluster c = new QueenKvCluster();
        c.setMetadata(new ObjectMetaBuilder().withName("kv").withNamespace("prod").build());
        QueenKvClusterSpec spec = new QueenKvClusterSpec();
        spec.setReplicas(3);
        spec.setImage(Fixtures.IMAGE);
        c.setSpec(spec);
        client.resources(QueenKvCluster.class).inNamespace("prod").resource(c).create();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get("/metrics").body())
                .contains("operator_sdk_reconciliations_started_total"));
        assertThat(get("/metrics").headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        assertThat(get("/nothing-here").statusCode()).isEqualTo(404);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoints.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
