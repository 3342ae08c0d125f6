package io.queenkv.e2e.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.queenkv.e2e.operator.ControlPlane.CommandResult;

/**
 * The chart and the CRD against the real tools and a real API server: {@code helm lint}, {@code helm template}
 * (both scopes, with the defaults and with every option on) accepted by a server-side dry run, the values
 * schema refusing a typo, the commands NOTES.txt prints run as pasted after a real {@code helm install}, and
 * {@code kubectl apply} of the CRD and of {@code QueenKvCluster}s: the example is accepted; even replicas, a
 * storage change and an unknown field are refused by the API server's schema and CEL rules (the mock API
 * server validates none of them).
 *
 * <p>The PodMonitors need their CRD on the API server. The test installs a minimal one (group, kind, version,
 * an object spec with unknown fields kept), so the dry run checks that they are well-formed namespaced objects
 * of monitoring.coreos.com/v1 but not their fields; {@code -Dqueenkv.podMonitorCrd=<file>} installs the
 * Prometheus Operator's own CRD instead (monitoring.coreos.com_podmonitors.yaml), which checks the fields too.
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
        String podMonitorCrd = System.getProperty("queenkv.podMonitorCrd", "");
        Path crd = podMonitorCrd.isBlank() ? Files.writeString(dir.resolve("podmonitor-crd.yaml"), MINIMAL_POD_MONITOR_CRD) : Path.of(podMonitorCrd);
        controlPlane.kubectl("apply", "--server-side", "-f", crd.toString()).orThrow();
        controlPlane.kubectl("wait", "--for=condition=Established", "crd/podmonitors.monitoring.coreos.com", "--timeout=60s").orThrow();
    }

    /** Only what makes PodMonitor a served, namespaced kind: see the class comment. */
    static final String MINIMAL_POD_MONITOR_CRD = """
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata:
              name: podmonitors.monitoring.coreos.com
            spec:
              group: monitoring.coreos.com
              names: {kind: PodMonitor, listKind: PodMonitorList, plural: podmonitors, singular: podmonitor}
              scope: Namespaced
              versions:
                - name: v1
                  served: true
                  storage: true
                  schema:
                    openAPIV3Schema:
                      type: object
                      properties:
                        spec:
                          type: object
                          x-kubernetes-preserve-unknown-fields: true
            """;

    /** Every option of the chart on: the PodMonitors, the dashboard's ConfigMap, the NetworkPolicies with an httpFrom peer. */
    static final String[] EVERY_OPTION = {"--set", "metrics.podMonitor.enabled=true,metrics.dashboard.enabled=true,networkPolicy.enabled=true",
            "--set", "metrics.podMonitor.labels.release=prometheus,metrics.podMonitor.scrapeTimeout=10s",
            "--set-json", "networkPolicy.httpFrom=[{\"podSelector\":{}},{\"namespaceSelector\":{\"matchLabels\":{\"kubernetes.io/metadata.name\":\"monitoring\"}}}]"};

    @AfterAll
    void stop() {
        if (controlPlane != null) controlPlane.close();
    }

    @Test
    void helmLint_passes() {
        CommandResult lint = controlPlane.helm("lint", ControlPlaneCluster.chart().toString(), "--strict");
        assertThat(lint.exitCode()).as(lint.output()).isZero();
        CommandResult everything = controlPlane.helm(concat(new String[] {"lint", ControlPlaneCluster.chart().toString(), "--strict",
                "--set", "clusterScoped=false", "--set-json", "watchNamespaces=[\"" + NAMESPACE + "\"]"}, EVERY_OPTION));
        assertThat(everything.exitCode()).as(everything.output()).isZero();
    }

    @Test
    void helmTemplate_everyOption_bothScopes_acceptedByTheApiServer() throws IOException {
        for (String[] values : new String[][] {{"--set", "clusterScoped=true", "--set-json", "networkPolicy.namespaces=[\"" + NAMESPACE + "\"]"},
                {"--set", "clusterScoped=false", "--set-json", "watchNamespaces=[\"" + NAMESPACE + "\"]"}}) {
            CommandResult rendered = controlPlane.helm(concat(concat(new String[] {"template", "queen-kv-operator",
                    ControlPlaneCluster.chart().toString(), "--namespace", NAMESPACE}, values), EVERY_OPTION)).orThrow();
            assertThat(rendered.output()).contains("kind: NetworkPolicy", "kind: PodMonitor", "name: queen-kv-operator-nodes",
                    "kind: ConfigMap", "grafana_dashboard: \"1\"", "\"title\": \"Queen KV\"");
            assertThat(rendered.output().split("kind: PodMonitor", -1)).as("the operator's and the nodes' PodMonitors").hasSize(3);
            Path manifests = Files.writeString(dir.resolve("rendered-every-option.yaml"), rendered.output());
            CommandResult dryRun = controlPlane.kubectl("apply", "--dry-run=server", "-n", NAMESPACE, "-f", manifests.toString());
            assertThat(dryRun.exitCode()).as("server-side dry run of helm template %s with every option:\n%s", String.join(" ", values),
                    dryRun.output()).isZero();
            assertThat(dryRun.output()).contains("networkpolicy.networking.k8s.io/queen-kv-operator-nodes created (server dry run)",
                    "podmonitor.monitoring.coreos.com/queen-kv-operator-nodes created (server dry run)",
                    "configmap/queen-kv-operator-dashboard created (server dry run)");
        }
    }

    @Test
    void helmTemplate_refusesNetworkPoliciesWithoutNamespaces() {
        CommandResult rendered = controlPlane.helm("template", "queen-kv-operator", ControlPlaneCluster.chart().toString(),
                "--set", "networkPolicy.enabled=true");
        assertThat(rendered.exitCode()).isNotZero();
        assertThat(rendered.output()).contains("networkPolicy.enabled needs networkPolicy.namespaces when watchNamespaces is empty");
    }

    /** values.schema.json: a misspelt value fails helm template and helm lint --strict instead of being ignored. */
    @Test
    void helmTemplate_refusesAMisspeltValue() {
        for (String typo : new String[] {"metrics.podMonitor.enabeld=true", "networkPolicy.enabled=yes", "imagee.tag=x"}) {
            CommandResult rendered = controlPlane.helm("template", "queen-kv-operator", ControlPlaneCluster.chart().toString(), "--set", typo);
            assertThat(rendered.exitCode()).as(typo).isNotZero();
            assertThat(rendered.output()).as(typo).contains("values don't meet the specifications of the schema");
            CommandResult lint = controlPlane.helm("lint", ControlPlaneCluster.chart().toString(), "--strict", "--set", typo);
            assertThat(lint.exitCode()).as("helm lint --strict --set " + typo).isNotZero();
        }
    }

    /**
     * NOTES.txt after a real {@code helm install}, namespaced and cluster-wide: every command it prints is
     * valid shell, has no placeholder left, and runs as pasted against the API server, except those that need
     * what this control plane lacks (pods that run, an operator that reconciles), each skipped for a reason
     * given here; the two that inspect the operator's Deployment run as {@code kubectl get} of the same object.
     */
    @Test
    void notes_everyCommandWorksAsPasted() throws IOException {
        controlPlane.kubectl("create", "namespace", "notes-watched").orThrow();
        record Install(String release, String namespace, String clusterNamespace, String[] values) {}
        for (Install install : new Install[] {
                new Install("notes-ns", "notes-system-a", "notes-watched",
                        new String[] {"--set", "clusterScoped=false", "--set-json", "watchNamespaces=[\"notes-watched\"]"}),
                new Install("notes-cw", "notes-system-b", "default",
                        new String[] {"--set", "clusterScoped=true", "--set-json", "networkPolicy.namespaces=[\"default\"]"})}) {
            controlPlane.helm(concat(concat(new String[] {"install", install.release(), ControlPlaneCluster.chart().toString(),
                    "--namespace", install.namespace(), "--create-namespace"}, install.values()), EVERY_OPTION)).orThrow();
            String notes = controlPlane.helm("get", "notes", install.release(), "--namespace", install.namespace()).orThrow().output();
            List<String> commands = NotesCommands.of(notes);
            assertThat(commands).as(notes).hasSizeGreaterThan(10);
            String script = String.join("\n", commands) + "\n";
            assertThat(script).as("no placeholder left").doesNotContainPattern("<[a-zA-Z][-a-zA-Z. ]*>");
            CommandResult syntax = shell("bash -n <<'SCRIPT'\n" + script + "SCRIPT\n");
            assertThat(syntax.exitCode()).as("bash -n of the commands of NOTES.txt:\n%s\n%s", script, syntax.output()).isZero();
            String deployment = "deploy/" + install.release() + "-queen-kv-operator";
            List<String> ran = new java.util.ArrayList<>();
            for (String command : commands) {
                String run = NotesCommands.runnable(command, deployment);
                if (run == null) continue;
                CommandResult result = shell(run);
                assertThat(result.exitCode()).as("NOTES.txt of %s: %s\n%s", install.release(), run, result.output()).isZero();
                ran.add(run);
            }
            assertThat(ran).as("what ran of\n%s", script).hasSize(8);
            assertThat(String.join("\n", ran)).contains("-n '" + install.clusterNamespace() + "' apply -f - <<'YAML'",
                    "-n '" + install.namespace() + "' get " + deployment);
            assertThat(controlPlane.kubectl("get", "qkv", "kv", "-n", install.clusterNamespace(), "-o", "jsonpath={.spec.replicas}")
                    .orThrow().output().trim()).as("the NOTES' cluster, scaled by its kubectl scale").isEqualTo("5");
        }
    }

    /** The commands of a rendered NOTES.txt: lines indented by two spaces, and the heredoc block from "kubectl ... <<'YAML'" to "YAML". */
    static final class NotesCommands {
        static List<String> of(String notes) {
            List<String> commands = new java.util.ArrayList<>();
            String[] lines = notes.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                if (line.startsWith("  ") && !line.isBlank()) commands.add(line.strip());
                else if (line.startsWith("kubectl ") && line.endsWith("<<'YAML'")) {
                    StringBuilder block = new StringBuilder(line);
                    while (!lines[++i].equals("YAML")) block.append('\n').append(lines[i]);
                    commands.add(block.append("\nYAML").toString());
                } else if (line.matches("^(kubectl|curl|helm|cat|kill|sleep) .*"))
                    throw new AssertionError("a command outside the blocks NOTES.txt marks as commands: " + line);
            }
            return commands;
        }

        /** What runs here for a command: itself, a {@code kubectl get} of what it inspects, or null (skipped, the reason below). */
        static String runnable(String command, String deployment) {
            if (command.contains(" rollout status " + deployment) || command.contains(" logs " + deployment))
                // No Deployment controller and no kubelet for the operator here: its Deployment exists but never rolls out.
                return command.replaceFirst(" (rollout status|logs) " + deployment + ".*$", " get " + deployment);
            if (command.equals("kubectl apply -f crds/")) // "in the chart's directory"
                return "cd '" + ControlPlaneCluster.chart() + "' && " + command;
            if (command.contains(" wait qkv/kv ")) return null; // no operator reconciles here
            if (command.contains(" get secret kv-tls ")) return null; // the operator writes it
            if (command.contains(" port-forward ") || command.startsWith("sleep ") || command.startsWith("curl ")
                    || command.equals("kill \"$!\"")) return null; // no node pods run here
            if (command.matches("kubectl -n '[a-z0-9-]+' (apply -f - <<'YAML'\n(?s).*|get qkv kv|scale qkv/kv --replicas 5|describe qkv kv"
                    + "|get podmonitors -l app.kubernetes.io/instance=[a-z0-9-]+)")) return command;
            throw new AssertionError("NOTES.txt prints a command this test does not know; run it or say why not: " + command);
        }
    }

    /** bash -c, with the control plane's kubectl first on the PATH and its admin kubeconfig. */
    CommandResult shell(String command) {
        try {
            Path out = Files.createTempFile(dir, "shell", ".out");
            ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(out.toFile());
            pb.environment().put("PATH", controlPlane.binaries.kubectl().getParent() + java.io.File.pathSeparator + System.getenv("PATH"));
            pb.environment().put("KUBECONFIG", controlPlane.kubeconfig.toString());
            Process p = pb.start();
            if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command + " did not finish within 60 s");
            }
            return new CommandResult(List.of("bash", "-c", command), p.exitValue(), Files.readString(out));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
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

    @Test
    void restoreFrom_onlyAtCreationAndInsideItsClaim() throws IOException {
        String restore = "  restoreFrom:\n    claimName: kv-backups\n    path: %s\n";
        CommandResult created = apply("restored", cluster("restored", 3, "10Gi", restore.formatted("kv-1.backup")));
        assertThat(created.exitCode()).as(created.output()).isZero();
        CommandResult changed = apply("restored", cluster("restored", 3, "10Gi", restore.formatted("kv-2.backup")));
        assertThat(changed.exitCode()).isNotZero();
        assertThat(changed.output()).contains("restoreFrom can only be set when the cluster is created");
        CommandResult removed = apply("restored", cluster("restored", 3, "10Gi", ""));
        assertThat(removed.exitCode()).as("removing it is allowed: %s", removed.output()).isZero();

        CommandResult added = apply("plain", cluster("plain", 3, "10Gi", ""));
        assertThat(added.exitCode()).as(added.output()).isZero();
        CommandResult addedLater = apply("plain", cluster("plain", 3, "10Gi", restore.formatted("kv-1.backup")));
        assertThat(addedLater.exitCode()).isNotZero();
        assertThat(addedLater.output()).contains("restoreFrom can only be set when the cluster is created");

        CommandResult outside = apply("outside", cluster("outside", 3, "10Gi", restore.formatted("../etc/x.backup")));
        assertThat(outside.exitCode()).isNotZero();
        assertThat(outside.output()).contains("path must stay inside the claim");
    }

    @Test
    void backupSchedule_mustBeCron() throws IOException {
        CommandResult bad = apply("badcron", cluster("badcron", 3, "10Gi", "  backup:\n    schedule: every day\n"));
        assertThat(bad.exitCode()).isNotZero();
        assertThat(bad.output()).contains("schedule");
        CommandResult good = apply("goodcron", cluster("goodcron", 3, "10Gi", "  backup:\n    schedule: \"0 3 * * *\"\n    retention: 3\n"));
        assertThat(good.exitCode()).as(good.output()).isZero();
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
