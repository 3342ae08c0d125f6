package io.queenkv.e2e.operator;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.queenkv.operator.OperatorMain;
import io.queenkv.operator.QueenKvReconciler;
import io.queenkv.operator.nodes.HttpNodeAdmin;

/**
 * The real operator ({@link QueenKvReconciler} with {@link HttpNodeAdmin}) run in the test JVM against
 * {@code client}, watching one namespace: exactly what {@code OperatorMain} registers, except for the
 * way to the nodes (the pods' DNS names do not resolve here: a {@link PodTunnel}, or plain addresses) and shorter poll
 * intervals. Against the mock API server (no apply) server-side apply is off, as in the operator's own
 * mock-server tests.
 */
final class InProcessOperator implements AutoCloseable {
    /** Poll faster than production (3 s), so the scenarios move quickly; never stuck before 5 minutes. */
    static final QueenKvReconciler.Timing TIMING = new QueenKvReconciler.Timing(Duration.ofMillis(500), Duration.ofMillis(100),
            Duration.ofMinutes(5));

    private final Operator operator;

    /**
     * @param plaintext where to call a node without TLS; with TLS it is called at its pod's DNS name, as in
     *                  production, through {@code tunnel} (so the host name check is the real one)
     */
    InProcessOperator(KubernetesClient client, String namespace, HttpNodeAdmin.AddressResolver plaintext, PodTunnel tunnel,
                      boolean serverSideApply) {
        this(client, namespace, plaintext, tunnel, serverSideApply, null);
    }

    /**
     * @param election the Lease this replica competes for (null: none), as {@code OperatorMain} configures it
     *                 except that losing the lease stops this replica instead of exiting the JVM
     */
    InProcessOperator(KubernetesClient client, String namespace, HttpNodeAdmin.AddressResolver plaintext, PodTunnel tunnel,
                      boolean serverSideApply, io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration election) {
        HttpNodeAdmin admin = new HttpNodeAdmin(client, node -> node.tls() ? URI.create(node.httpUrl()) : plaintext.baseUri(node),
                () -> HttpClient.newBuilder().proxy(tunnel.proxy()), Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(60));
        QueenKvReconciler reconciler = new QueenKvReconciler(admin, TIMING, Clock.systemUTC());
        operator = new Operator(o -> {
            OperatorMain.configure(o, client).withCloseClientOnStop(false);
            if (election != null) o.withLeaderElectionConfiguration(election);
            if (!serverSideApply)
                o.withSSABasedCreateUpdateMatchForDependentResources(false).withUseSSAToPatchPrimaryResource(false);
        });
        operator.register(reconciler, o -> o.settingNamespaces(namespace));
        operator.start();
    }

    @Override
    public void close() {
        operator.stop();
    }
}
