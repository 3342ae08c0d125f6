package io.queenkv.e2e.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.queenkv.e2e.operator.ControlPlane.CommandResult;

/**
 * The chart and the CRD against the real tools and a real API server: {@code helm lint}, {@code helm template}
 * (both scopes) accepted by a server-side dry run, and {@code kubectl apply} of the CRD and of
 * {@code QueenKvCluster}s: the example is accepted; even replicas, a storage change and an unknown field are
 * refused by the API server's schema and CEL rules (the mock API server validates none of them).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControlPlaneChartAndCrdTest {
    static final String NAMESPACE = "crd-checks";

    ControlPlane controlPlane;
    Path dir;

    @BeforeAll
    void start() throws IOException {
        ControlPlane.Binaries binaries = ControlPlane.Binaries.locate();
        Assumptions.assumeTrue(binaries.missing() == null, binaries::missing);
        dir = LocalCluster.createBaseDir();
        controlPlane = ControlPlane.start(binaries, dir.resolve("control-plane"));
        controlPlane.kubectl("apply", "--server-side", "-f", LocalCluster.crd().toString()).orThrow();
        controlPlane.kubectl("wait", "--for=condition=Established", "crd/queenkvclusters.queenkv.io", "--timeout=60s").orThrow();
        controlPlane.kubectl("create", "namespace", NAMESPACE).orThrow();
    }

    @AfterAll
    void stop() {
        if (controlPlane != null) controlPlane.close();
    }

    @Test
    void helmLint_passes() {
        CommandResult lint = controlPlane.helm("lint", ControlPlaneCluster.chart().toString(), "--strict");
        assertThat(lint.exitCode()).as(lint.output()).isZero();
    }

    @Test
    void helmTemplate_bothScopes_acceptedByTheApiServer() throws IOException {
        for (String[] values : new String[][] {{"--set", "clusterScoped=true"},
                {"--set", "clusterScoped=false", "--set-json", "watchNamespaces=[\"" + NAMESPACE + "\"]"}}) {
            CommandResult rendered = controlPlane.helm(concat(new String[] {"template", "queen-kv-operator",
                    ControlPlaneCluster.chart().toString(), "--namespace", NAMESPACE}, values)).orThrow();
            assertThat(rendered.output()).contains("kind: ServiceAccount", "kind: Deployment",
                    values[1].equals("clusterScoped=true") ? "kind: ClusterRole" : "kind: Role");
            Path manifests = Files.writeString(dir.resolve("rendered.yaml"), rendered.output());
            CommandResult dryRun = controlPlane.kubectl("apply", "--dry-run=server", "-n", NAMESPACE, "-f", manifests.toString());
            assertThat(dryRun.exitCode()).as("server-side dry run of helm template %s:\n%s", String.join(" ", values), dryRun.output())
                    .isZero();
        }
    }

    @Test
    void helmTemplate_refusesANamespacedInstallWithoutNamespaces() {
        CommandResult rendered = controlPlane.helm("template", "queen-kv-operator", ControlPlaneCluster.chart().toString(),
                "--set", "clusterScoped=false");
        assertThat(rendered.exitCode()).isNotZero();
        assertThat(rendered.output()).contains("clusterScoped=false needs watchNamespaces");
    }

    @Test
    void theExample_isAccepted() {
        Path example = LocalCluster.e2eDir().resolve("../examples/queenkvcluster.yaml").normalize();
        CommandResult apply = controlPlane.kubectl("apply", "--dry-run=server", "-n", NAMESPACE, "-f", example.toString());
        assertThat(apply.exitCode()).as(apply.output()).isZero();
    }

    @Test
    void evenReplicas_refusedByTheCelRule() throws IOException {
        CommandResult apply = apply("even", cluster("even", 4, "10Gi", ""));
        assertThat(apply.exitCode()).isNotZero();
        assertThat(apply.output()).contains("replicas must be odd");
    }

    @Test
    void unknownField_refusedByTheSchema() throws IOException {
        CommandResult apply = apply("unknown", cluster("unknown", 3, "10Gi", "  replica: 3\n"));
        assertThat(apply.exitCode()).isNotZero();
        assertThat(apply.output()).contains("unknown field").contains("replica");
    }

    @Test
    void storageChange_refusedByTheTransitionRule() throws IOException {
        CommandResult created = apply("storage", cluster("storage", 3, "10Gi", ""));
        assertThat(created.exitCode()).as(created.output()).isZero();
        CommandResult changed = apply("storage", cluster("storage", 3, "20Gi", ""));
        assertThat(changed.exitCode()).isNotZero();
        assertThat(changed.output()).contains("storage cannot be changed after the cluster is created");
    }

    /** {@code kubectl apply} with strict field validation (the API server reports unknown fields as errors). */
    CommandResult apply(String name, String yaml) throws IOException {
        Path file = Files.writeString(dir.resolve(name + "-" + System.nanoTime() + ".yaml"), yaml);
        return controlPlane.kubectl("apply", "--validate=strict", "-n", NAMESPACE, "-f", file.toString());
    }

    static String cluster(String name, int replicas, String storage, String extraSpec) {
        return """
                apiVersion: queenkv.io/v1alpha1
                kind: QueenKvCluster
                metadata:
                  name: %s
                spec:
                  replicas: %d
                  image: queen-kv-node:0.1.0
                  storage:
                    size: %s
                %s""".formatted(name, replicas, storage, extraSpec);
    }

    private static String[] concat(String[] a, String[] b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
