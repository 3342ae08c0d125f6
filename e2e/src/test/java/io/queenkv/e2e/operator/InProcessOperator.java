package io.queenkv.e2e.operator;

import java.time.Clock;
import java.time.Duration;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.queenkv.operator.QueenKvReconciler;
import io.queenkv.operator.nodes.HttpNodeAdmin;

/**
 * The real operator ({@link QueenKvReconciler} with {@link HttpNodeAdmin}) run in the test JVM against
 * {@code client}, watching one namespace: exactly what {@code OperatorMain} registers, except for the
 * {@link HttpNodeAdmin.AddressResolver} (the pods' DNS names do not resolve here) and shorter poll
 * intervals. Against the mock API server (no apply) server-side apply is off, as in the operator's own
 * mock-server tests.
 */
final class InProcessOperator implements AutoCloseable {
    /** Poll faster than production (3 s), so the scenarios move quickly; never stuck before 5 minutes. */
    static final QueenKvReconciler.Timing TIMING = new QueenKvReconciler.Timing(Duration.ofMillis(500), Duration.ofMillis(100),
            Duration.ofMinutes(5));

    private final Operator operator;

    InProcessOperator(KubernetesClient client, String namespace, HttpNodeAdmin.AddressResolver resolver, boolean serverSideApply) {
        QueenKvReconciler reconciler = new QueenKvReconciler(new HttpNodeAdmin(client, resolver), TIMING, Clock.systemUTC());
        operator = new Operator(o -> {
            o.withKubernetesClient(client).withCloseClientOnStop(false);
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
