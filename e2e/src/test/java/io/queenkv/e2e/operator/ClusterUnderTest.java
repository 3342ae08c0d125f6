package io.queenkv.e2e.operator;

import java.net.InetSocketAddress;
import java.net.URI;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * What the operator scenarios ({@link OperatorScenarios}) need from a place to run in: an API server
 * with the CRD installed and the operator running against it, a namespace of their own, a way to reach
 * a pod's HTTP port from the test JVM, and a way to crash a pod's node process.
 *
 * <ul>
 *   <li>{@link LocalCluster}: Fabric8's mock API server, the real operator in this JVM and
 *       {@link LocalKubelet} running each pod as a local node process (always available);</li>
 *   <li>{@link RealCluster}: a real cluster from a kubeconfig ({@code -Dqueenkv.e2e.kubeconfig} or
 *       {@code QUEEN_KV_E2E_KUBECONFIG}) or a K3s container from Testcontainers; the operator runs in
 *       this JVM against the real API and reaches the pods through port-forwards.</li>
 * </ul>
 */
interface ClusterUnderTest extends AutoCloseable {
    /** For messages: where the scenarios run. */
    String describe();

    KubernetesClient client();

    /** The scenarios' namespace (exists; the operator watches it). */
    String namespace();

    /** {@code spec.image} of the clusters the scenarios create. */
    String nodeImage();

    /**
     * Whether the scenarios' clusters run with TLS (the default, mode Operator); {@code -Dqueenkv.e2e.tls=false}
     * runs them in plaintext (mode Disabled).
     */
    static boolean tls() {
        return !"false".equalsIgnoreCase(System.getProperty("queenkv.e2e.tls", "true"));
    }

    /** Where this JVM connects to reach {@code port} of pod {@code pod} (a pod address, a port-forward). */
    InetSocketAddress podSocket(String pod, int port);

    /** {@code http://host:port} at which this JVM reaches {@code port} of pod {@code pod} without TLS. */
    default URI podUri(String pod, int port) {
        InetSocketAddress a = podSocket(pod, port);
        return URI.create("http://" + a.getHostString() + ":" + a.getPort());
    }

    /** The CONNECT proxy through which this JVM calls the pods by their DNS names (with TLS). */
    PodTunnel tunnel();

    /**
     * Crashes the node process of {@code pod} the way an OOM kill or a crash would; the kubelet
     * restarts the container in the same pod (same claim, same pod uid, restartCount + 1).
     */
    void crash(String pod);

    /** How much longer than on the local harness the scenarios' waits may take. */
    default double slowness() {
        return 1;
    }

    /** Diagnostics for a failed scenario: node logs, harness events (may be empty). */
    default String diagnostics() {
        return "";
    }

    @Override
    void close();
}
