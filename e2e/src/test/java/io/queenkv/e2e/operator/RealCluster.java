package io.queenkv.e2e.operator;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.queenkv.operator.model.Model;

/**
 * A real cluster (kind, k3s, a K3s container, …) reached through a kubeconfig. The scenarios get a
 * namespace of their own ({@code queenkv-e2e-<random>}, deleted at the end); the CRD is applied from
 * {@code crds/}; the operator runs in this JVM against the real API server (server-side apply on, as in
 * production), reaching each node's admin API through a Fabric8 port-forward to its pod, as does the
 * test's SDK client. The node image must be one the cluster can pull ({@code -Dqueenkv.e2e.nodeImage}).
 */
final class RealCluster implements ClusterUnderTest {
    private final String description;
    private final KubernetesClient client;
    private final String namespace;
    private final String nodeImage;
    private final InProcessOperator operator;
    private final PodTunnel tunnel;
    private final AutoCloseable onClose;
    /** Pod name → its port-forward (per pod uid and port). */
    private final Map<String, Forward> forwards = new ConcurrentHashMap<>();

    private record Forward(String uid, LocalPortForward forward) {}

    RealCluster(String description, String kubeconfigYaml, String nodeImage, AutoCloseable onClose) {
        this.description = description;
        this.nodeImage = nodeImage;
        this.onClose = onClose;
        this.client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfigYaml)).build();
        this.namespace = "queenkv-e2e-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions().load(LocalCluster.crd().toFile()).item();
            client.resource(crd).fieldManager("queen-kv-e2e").forceConflicts().serverSideApply();
            client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                    .waitUntilCondition(c -> c.getStatus() != null && c.getStatus().getConditions().stream()
                            .anyMatch(k -> "Established".equals(k.getType()) && "True".equals(k.getStatus())), 60, java.util.concurrent.TimeUnit.SECONDS);
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        this.tunnel = new PodTunnel((host, port) -> podSocket(host.split("\\.", 2)[0], port));
        this.operator = new InProcessOperator(client, namespace,
                node -> podUri(node.host().split("\\.", 2)[0], Model.HTTP_PORT), tunnel, true);
        System.out.println("[operator-e2e] " + description + ", namespace " + namespace + ", node image " + nodeImage);
    }

    /** The kubeconfig named by {@code -Dqueenkv.e2e.kubeconfig} or {@code QUEEN_KV_E2E_KUBECONFIG}, or null. */
    static Path kubeconfig() {
        String p = System.getProperty("queenkv.e2e.kubeconfig", System.getenv("QUEEN_KV_E2E_KUBECONFIG"));
        return p == null || p.isBlank() ? null : Path.of(p);
    }

    /** The node image from {@code -Dqueenkv.e2e.nodeImage} or {@code QUEEN_KV_E2E_NODE_IMAGE}, or null. */
    static String nodeImageSetting() {
        String i = System.getProperty("queenkv.e2e.nodeImage", System.getenv("QUEEN_KV_E2E_NODE_IMAGE"));
        return i == null || i.isBlank() ? null : i;
    }

    static RealCluster fromKubeconfig(Path kubeconfig, String nodeImage) throws java.io.IOException {
        return new RealCluster("the cluster of kubeconfig " + kubeconfig, Files.readString(kubeconfig), nodeImage, () -> {});
    }

    @Override
    public String describe() { return description; }

    @Override
    public KubernetesClient client() { return client; }

    @Override
    public String namespace() { return namespace; }

    @Override
    public String nodeImage() { return nodeImage; }

    /** A port-forward to the pod, opened on first use and again when the pod was replaced or the forward broke. */
    @Override
    public PodTunnel tunnel() { return tunnel; }

    @Override
    public InetSocketAddress podSocket(String pod, int port) {
        String key = pod + ":" + port;
        Pod p = client.pods().inNamespace(namespace).withName(pod).get();
        if (p == null) throw new IllegalStateException("no pod " + pod + " in " + namespace);
        Forward f = forwards.compute(key, (k, old) -> {
            if (old != null && old.uid().equals(p.getMetadata().getUid()) && old.forward().isAlive() && !old.forward().errorOccurred())
                return old;
            if (old != null) close(old.forward());
            return new Forward(p.getMetadata().getUid(), client.pods().inNamespace(namespace).withName(pod).portForward(port));
        });
        return new InetSocketAddress("127.0.0.1", f.forward().getLocalPort());
    }

    /**
     * SIGTERM to the container's main process (the JVM: the start script exec's it) through
     * {@code kubectl exec}: PID 1 of a container cannot be SIGKILLed from inside it. The container
     * exits and the kubelet restarts it in the same pod.
     */
    @Override
    public void crash(String pod) {
        try (ExecWatch w = client.pods().inNamespace(namespace).withName(pod).inContainer(Model.CONTAINER)
                .redirectingOutput().exec("sh", "-c", "kill 1")) {
            w.exitCode().get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not kill the node process of " + pod, e);
        }
    }

    /** Image pulls, scheduling and volume provisioning take longer than local processes. */
    @Override
    public double slowness() { return 3; }

    @Override
    public String diagnostics() {
        StringBuilder b = new StringBuilder();
        try {
            for (Pod p : client.pods().inNamespace(namespace).list().getItems()) {
                String log = client.pods().inNamespace(namespace).withName(p.getMetadata().getName()).tailingLines(25).getLog();
                b.append("----- last lines of pod ").append(p.getMetadata().getName()).append('\n').append(log).append('\n');
            }
        } catch (RuntimeException e) {
            b.append("(could not read the pod logs: ").append(e).append(")\n");
        }
        return b.toString();
    }

    @Override
    public void close() {
        try {
            operator.close();
            tunnel.close();
            forwards.values().forEach(f -> close(f.forward()));
            client.namespaces().withName(namespace).withTimeout(2, java.util.concurrent.TimeUnit.MINUTES).delete();
        } finally {
            client.close();
            try {
                onClose.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }

    private static void close(LocalPortForward f) {
        try {
            f.close();
        } catch (java.io.IOException ignored) {
            // best effort
        }
    }
}
