package io.queenkv.e2e.operator;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.queenkv.operator.model.Model;

/**
 * A real control plane on this machine ({@link ControlPlane}: etcd, kube-apiserver, kube-controller-manager)
 * with the operator chart installed by {@code helm install} (namespaced: a Role in {@value #NAMESPACE} only),
 * the real operator in this JVM with server-side apply on and the chart's ServiceAccount as its identity
 * (the admin impersonates it, so a permission the chart lacks is refused as in production), and
 * {@link LocalKubelet} as the one node's kubelet: the real StatefulSet controller makes the pods and
 * claims, the real garbage collector deletes what an owner reference says, the real disruption
 * controller keeps the PDB. Files under {@code e2e/target/operator-e2e/<stamp>/}.
 */
final class ControlPlaneCluster implements ClusterUnderTest {
    static final String NAMESPACE = "e2e";
    static final String OPERATOR_NAMESPACE = "queenkv-system";
    static final String RELEASE = "queen-kv-operator";

    private final Path baseDir;
    private final ControlPlane controlPlane;
    private final KubernetesClient admin;
    private final KubernetesClient operatorClient;
    private final LocalKubelet kubelet;
    private final PodTunnel tunnel;
    /** The replicas running, in start order; each competes for the chart's Lease. */
    private final java.util.List<InProcessOperator> operators = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** {@code system:serviceaccount:<ns>:<name>} the operator runs as. */
    final String operatorUser;

    ControlPlaneCluster(ControlPlane.Binaries binaries) {
        baseDir = LocalCluster.createBaseDir();
        Path jar = LocalCluster.privateNodeJar(baseDir);
        controlPlane = ControlPlane.start(binaries, baseDir.resolve("control-plane"));
        try {
            admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(controlPlane.kubeconfigYaml())).build();
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
            installChart(controlPlane);
            operatorUser = "system:serviceaccount:" + OPERATOR_NAMESPACE + ":" + chartServiceAccount(admin);
            // Pods need the namespace's default ServiceAccount (the ServiceAccount controller makes it).
            await("the default ServiceAccount of " + NAMESPACE).atMost(Duration.ofSeconds(30))
                    .until(() -> admin.serviceAccounts().inNamespace(NAMESPACE).withName("default").get() != null);
            operatorClient = new KubernetesClientBuilder().withConfig(impersonating(controlPlane.kubeconfigYaml(), operatorUser)).build();
            kubelet = new LocalKubelet(admin, NAMESPACE, jar, baseDir, LocalKubelet.Duties.KUBELET);
            tunnel = new PodTunnel((host, port) -> new InetSocketAddress(kubelet.address(host), port));
            startOperator("replica-a");
        } catch (RuntimeException e) {
            controlPlane.close();
            throw e;
        }
        System.out.println("[operator-e2e] real control plane at " + controlPlane.server + " in " + baseDir + "; the operator runs as " + operatorUser);
    }

    /**
     * {@code helm install} of the chart, as a user would install it for one namespace: its CRD (from
     * {@code crds/}), ServiceAccount, Role and RoleBinding in {@value #NAMESPACE}, and the operator
     * Deployment, which stays unscheduled here (no Deployment controller, no scheduler).
     */
    static void installChart(ControlPlane controlPlane) {
        controlPlane.helm("install", RELEASE, chart().toString(), "--namespace", OPERATOR_NAMESPACE, "--create-namespace",
                "--set", "clusterScoped=false", "--set-json", "watchNamespaces=[\"" + NAMESPACE + "\"]").orThrow();
    }

    static Path chart() {
        return LocalCluster.e2eDir().resolve("../charts/queen-kv-operator").toAbsolutePath().normalize();
    }

    /** The ServiceAccount the chart's Deployment runs as (the chart names it). */
    static String chartServiceAccount(KubernetesClient admin) {
        List<Deployment> deployments = admin.apps().deployments().inNamespace(OPERATOR_NAMESPACE).list().getItems();
        if (deployments.size() != 1) throw new IllegalStateException("expected the chart's one Deployment, found " + deployments.size());
        return deployments.get(0).getSpec().getTemplate().getSpec().getServiceAccountName();
    }

    /** The admin's kubeconfig, impersonating {@code user} with the groups every ServiceAccount token carries. */
    static Config impersonating(String kubeconfigYaml, String user) {
        Config config = Config.fromKubeconfig(kubeconfigYaml);
        config.setImpersonateUsername(user);
        config.setImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + OPERATOR_NAMESPACE, "system:authenticated");
        return config;
    }

    ControlPlane controlPlane() { return controlPlane; }

    /**
     * An admin client that does not retry a refused request: Fabric8 retries a 429 after its Retry-After by
     * itself, which would hide each eviction the PDB refuses from a drain that wants to count them.
     */
    KubernetesClient clientWithoutRetries() {
        Config config = Config.fromKubeconfig(controlPlane.kubeconfigYaml());
        config.setRequestRetryBackoffLimit(0);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    LocalKubelet kubelet() { return kubelet; }

    /** The operator's client: the chart's ServiceAccount, impersonated. */
    KubernetesClient operatorClient() { return operatorClient; }

    /**
     * Starts an operator replica with the chart's identity, competing for the chart's Lease ({@value #RELEASE}
     * in {@value #OPERATOR_NAMESPACE}, as the chart's Deployment configures it) under {@code identity}.
     */
    void startOperator(String identity) {
        var election = io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(RELEASE)
                .withLeaseNamespace(OPERATOR_NAMESPACE).withIdentity(identity).withExitOnStopLeading(false).build();
        operators.add(new InProcessOperator(operatorClient, NAMESPACE,
                node -> URI.create("http://" + kubelet.address(node.host()) + ":" + Model.HTTP_PORT), tunnel, true, election));
    }

    /** Stops the replica started first of those running (as a pod of an upgrade's old ReplicaSet goes). */
    void stopFirstOperator() {
        operators.remove(0).close();
    }

    @Override
    public String describe() {
        return "the real control plane (kube-apiserver + kube-controller-manager " + controlPlane.server + ", local node processes in "
                + baseDir + ")";
    }

    /** The admin's client: the scenarios act as a user with every right; the operator has only the chart's. */
    @Override
    public KubernetesClient client() { return admin; }

    @Override
    public String namespace() { return NAMESPACE; }

    @Override
    public String nodeImage() { return LocalKubelet.IMAGE; }

    @Override
    public InetSocketAddress podSocket(String pod, int port) {
        return new InetSocketAddress(kubelet.address(pod), port);
    }

    @Override
    public PodTunnel tunnel() { return tunnel; }

    @Override
    public void crash(String pod) {
        kubelet.kill9(pod);
    }

    /** Graceful deletion goes through the kubelet's stop and the StatefulSet controller's backoff. */
    @Override
    public double slowness() { return 1.5; }

    @Override
    public String diagnostics() {
        StringBuilder b = new StringBuilder(LocalCluster.kubeletDiagnostics(kubelet, baseDir));
        for (String component : List.of("kube-controller-manager", "kube-apiserver")) {
            try {
                List<String> lines = Files.readAllLines(controlPlane.log(component), StandardCharsets.UTF_8);
                b.append("----- last lines of ").append(controlPlane.log(component)).append('\n')
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()))).append('\n');
            } catch (IOException | UncheckedIOException e) {
                b.append("(could not read the ").append(component).append(" log: ").append(e).append(")\n");
            }
        }
        return b.toString();
    }

    @Override
    public void close() {
        try {
            for (InProcessOperator o : operators) o.close();
        } finally {
            tunnel.close();
            kubelet.close();
            operatorClient.close();
            admin.close();
            controlPlane.close();
            LocalCluster.deleteNodeData(baseDir);
            System.out.println("[operator-e2e] real control plane closed; logs in " + baseDir);
        }
    }
}
