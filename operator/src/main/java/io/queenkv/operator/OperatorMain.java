package io.queenkv.operator;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.queenkv.operator.nodes.HttpNodeAdmin;

/**
 * Runs the operator: one controller for {@code QueenKvCluster}s, watching the namespaces in
 * {@code WATCH_NAMESPACES} (comma-separated; absent or empty: all namespaces), calling the nodes' admin
 * API at their pods' DNS names. Production uses server-side apply (JOSDK's default).
 *
 * <p>Replicas elect a leader through the Lease {@code LEADER_ELECTION_LEASE_NAME} in
 * {@code LEADER_ELECTION_NAMESPACE} (absent: the client's namespace): only the holder reconciles, so two
 * replicas (an upgrade's overlap, a second replica for availability) never record and run two
 * operations on one cluster. A replica that loses the lease exits rather than act on a stale belief.
 *
 * <p>Health and metrics on {@code HEALTH_PORT} (default 8080): {@link OperatorEndpoints}.
 */
public final class OperatorMain {
    public static final String WATCH_NAMESPACES = "WATCH_NAMESPACES";
    public static final String LEASE_NAME = "LEADER_ELECTION_LEASE_NAME";
    public static final String LEASE_NAMESPACE = "LEADER_ELECTION_NAMESPACE";
    public static final String DEFAULT_LEASE_NAME = "queen-kv-operator";
    private static final Logger LOG = LoggerFactory.getLogger(OperatorMain.class);

    private OperatorMain() {}

    /** The registry /metrics serves: the JVM's meters; JOSDK's reconcile metrics are added to it. */
    public static PrometheusMeterRegistry metricsRegistry() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        return registry;
    }

    public static void main(String[] args) {
        KubernetesClient client = new KubernetesClientBuilder().build();
        LeaderElectionConfiguration election = leaderElection(System.getenv(LEASE_NAME), System.getenv(LEASE_NAMESPACE));
        PrometheusMeterRegistry registry = metricsRegistry();
        Operator operator = new Operator(o -> configure(o, client).withLeaderElectionConfiguration(election)
                .withMetrics(MicrometerMetrics.newPerResourceCollectingMicrometerMetricsBuilder(registry).build()));
        int port = port(System.getenv(OperatorEndpoints.PORT));
        try {
            new OperatorEndpoints(port, operator.getRuntimeInfo(), registry);
        } catch (IOException e) {
            System.err.println("queen-kv-operator: cannot serve health and metrics on port " + port + ": " + e.getMessage());
            System.exit(1);
        }
        Set<String> namespaces = namespaces(System.getenv(WATCH_NAMESPACES));
        operator.register(new QueenKvReconciler(new HttpNodeAdmin(client, HttpNodeAdmin.AddressResolver.podDns())),
                overrider -> watch(overrider, namespaces));
        operator.installShutdownHook(Duration.ofSeconds(30));
        operator.start();
        LOG.info("Queen KV operator started, watching {}", namespaces.isEmpty() ? "all namespaces" : namespaces);
    }

    /**
     * What every operator of ours runs with, whatever else it sets: {@code client}, and resource
     * versions read as numbers to order events. The reconciler writes status (its record of each intent
     * before it acts) and reads it back from JOSDK's cache; without ordering, any informer event for the
     * resource, even one older than the status just written (events lag behind on a busy machine),
     * drops the written copy from the cache, and the next reconcile acts on a status from before it
     * (seen in a test: the StatefulSet grown back and a removed member removed again). The resource
     * version is etcd's revision on every API server we know of.
     */
    public static ConfigurationServiceOverrider configure(ConfigurationServiceOverrider o, KubernetesClient client) {
        return o.withKubernetesClient(client).withParseResourceVersions(true);
    }

    /** The port of {@link OperatorEndpoints}: {@value OperatorEndpoints#PORT}, or {@value OperatorEndpoints#DEFAULT_PORT}. */
    static int port(String value) {
        if (value == null || value.isBlank()) return OperatorEndpoints.DEFAULT_PORT;
        try {
            int port = Integer.parseInt(value.trim());
            if (port >= 1 && port <= 65535) return port;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(OperatorEndpoints.PORT + "=" + value + " is not a port (1..65535)");
    }

    /** The Lease the replicas compete for; blank values take the defaults. */
    static LeaderElectionConfiguration leaderElection(String leaseName, String leaseNamespace) {
        var b = LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(
                leaseName == null || leaseName.isBlank() ? DEFAULT_LEASE_NAME : leaseName.trim());
        if (leaseNamespace != null && !leaseNamespace.isBlank()) b.withLeaseNamespace(leaseNamespace.trim());
        return b.withExitOnStopLeading(true).build();
    }

    /** The namespaces of a comma-separated list; empty means all. */
    static Set<String> namespaces(String list) {
        if (list == null || list.isBlank()) return Set.of();
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    /** Points the controller at {@code namespaces} (all when empty). */
    static <R extends io.fabric8.kubernetes.api.model.HasMetadata> void watch(ControllerConfigurationOverrider<R> overrider, Set<String> namespaces) {
        if (namespaces.isEmpty()) overrider.watchingAllNamespaces();
        else overrider.settingNamespaces(namespaces);
    }
}
