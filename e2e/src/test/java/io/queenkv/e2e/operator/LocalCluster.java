package io.queenkv.e2e.operator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

/**
 * Everything on this machine: Fabric8's mock API server in CRUD mode with the checked-in CRD, the real
 * operator in this JVM ({@link InProcessOperator}, reaching each node at its pod's loopback address),
 * and {@link LocalKubelet} running the pods as node processes from {@code node/target/queen-kv-node.jar}.
 * Files (node logs, data dirs, the hosts file) under {@code e2e/target/operator-e2e/<stamp>/}.
 */
final class LocalCluster implements ClusterUnderTest {
    static final String NAMESPACE = "e2e";
    /** The mock web server logs every request at INFO through java.util.logging. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final LocalKubelet kubelet;
    private final InProcessOperator operator;
    private final PodTunnel tunnel;
    private final Path baseDir;

    LocalCluster() {
        baseDir = createBaseDir();
        Path jar = privateNodeJar(baseDir);
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new EvictingCrudDispatcher(), false);
        server.init();
        client = server.createClient();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
        client.apiextensions().v1().customResourceDefinitions().load(crd().toFile()).create();
        kubelet = new LocalKubelet(client, NAMESPACE, jar, baseDir, LocalKubelet.Duties.KUBELET_AND_CONTROLLERS);
        tunnel = new PodTunnel((host, port) -> new InetSocketAddress(kubelet.address(host), port));
        operator = new InProcessOperator(client, NAMESPACE,
                node -> URI.create("http://" + kubelet.address(node.host()) + ":" + io.queenkv.operator.model.Model.HTTP_PORT), tunnel, false);
        System.out.println("[operator-e2e] local cluster in " + baseDir);
    }

    LocalKubelet kubelet() { return kubelet; }

    @Override
    public String describe() {
        return "the local harness (mock API server + local node processes in " + baseDir + ")";
    }

    @Override
    public KubernetesClient client() { return client; }

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

    @Override
    public String diagnostics() {
        return kubeletDiagnostics(kubelet, baseDir);
    }

    private static boolean logEvent(String line) {
        String t = line.stripLeading();
        return !(t.startsWith("at ") || t.startsWith("... ") || t.startsWith("Caused by:") || t.startsWith("Suppressed:"));
    }

    /** The kubelet's events and last error, and the last log events (no stack frames) of every node log under {@code baseDir/logs}. */
    static String kubeletDiagnostics(LocalKubelet kubelet, Path baseDir) {
        StringBuilder b = new StringBuilder("local kubelet events:\n");
        kubelet.events().forEach(e -> b.append("  ").append(e).append('\n'));
        if (kubelet.lastError() != null) b.append("last kubelet error: ").append(kubelet.lastError()).append('\n');
        Path logs = baseDir.resolve("logs");
        if (Files.isDirectory(logs)) {
            try (Stream<Path> files = Files.list(logs)) {
                for (Path f : files.sorted().toList()) {
                    // Log events only: a stack trace's frames would fill the report with one exception.
                    List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8).stream().filter(LocalCluster::logEvent).toList();
                    b.append("----- last log events of ").append(f).append('\n')
                            .append(lines.subList(Math.max(0, lines.size() - 25), lines.size()).stream().collect(Collectors.joining("\n")))
                            .append('\n');
                }
            } catch (IOException e) {
                b.append("(could not read the logs: ").append(e).append(")\n");
            }
        }
        return b.toString();
    }

    @Override
    public void close() {
        try {
            operator.close();
        } finally {
            tunnel.close();
            kubelet.close();
            client.close();
            server.destroy();
            deleteNodeData(baseDir);
            System.out.println("[operator-e2e] local cluster closed; node logs in " + baseDir.resolve("logs"));
        }
    }

    /**
     * The CRUD mock plus the pods' {@code eviction} subresource, which it lacks: an eviction deletes the
     * pod, as the API server does when no PodDisruptionBudget stands in the way (the harness runs no
     * disruption controller; the operator's own quorum check is what guards the roll here).
     */
    static final class EvictingCrudDispatcher extends KubernetesCrudDispatcher {
        private static final java.util.regex.Pattern EVICTION =
                java.util.regex.Pattern.compile("(/api/v1/namespaces/[^/]+/pods/[^/?]+)/eviction(\\?.*)?");

        @Override
        public io.fabric8.mockwebserver.http.MockResponse handleCreate(io.fabric8.mockwebserver.http.RecordedRequest request) {
            java.util.regex.Matcher m = EVICTION.matcher(request.getPath());
            if (!m.matches()) return super.handleCreate(request);
            io.fabric8.mockwebserver.http.MockResponse deleted = handleDelete(m.group(1));
            return deleted.code() == 200 ? new io.fabric8.mockwebserver.http.MockResponse().setResponseCode(201)
                    .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\",\"code\":201}") : deleted;
        }
    }

    // ---- files ----------------------------------------------------------------------------------------

    static Path e2eDir() {
        String prop = System.getProperty("queenkv.e2eDir");
        if (prop != null && !prop.isBlank()) return Path.of(prop);
        Path cwd = Path.of("").toAbsolutePath();
        return Files.isDirectory(cwd.resolve("e2e")) && !cwd.endsWith("e2e") ? cwd.resolve("e2e") : cwd;
    }

    /** The checked-in CRD ({@code crds/}, kept equal to the generated one by the operator's CrdUpToDateTest). */
    static Path crd() {
        Path p = e2eDir().resolve("../crds/queenkvclusters.queenkv.io-v1.yml").normalize();
        if (!Files.isRegularFile(p)) throw new IllegalStateException("no CRD at " + p);
        return p;
    }

    /** A private copy of the built node jar: a rebuild of node/ during the run cannot change the nodes under our feet. */
    static Path privateNodeJar(Path baseDir) {
        try {
            return Files.copy(nodeJar(), baseDir.resolve("queen-kv-node.jar"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The claims' and pods' dirs and the jar copy go (logs stay), unless {@code -Dqueenkv.keepData=true}. */
    static void deleteNodeData(Path baseDir) {
        if (Boolean.getBoolean("queenkv.keepData")) return;
        LocalKubelet.deleteTree(baseDir.resolve("volumes"));
        LocalKubelet.deleteTree(baseDir.resolve("pods"));
        try {
            Files.deleteIfExists(baseDir.resolve("queen-kv-node.jar"));
        } catch (IOException ignored) {
            // best effort
        }
    }

    static Path nodeJar() {
        String prop = System.getProperty("queenkv.nodeJar");
        Path jar = (prop != null && !prop.isBlank() ? Path.of(prop) : e2eDir().resolve("../node/target/queen-kv-node.jar"))
                .toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar))
            throw new IllegalStateException("The node jar " + jar + " does not exist. Build the node first: "
                    + "`mvn -q -o -DskipTests package -pl node`, or point -Dqueenkv.nodeJar=… at a built jar.");
        return jar;
    }

    static Path createBaseDir() {
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        try {
            Path target = e2eDir().resolve("target");
            if (Files.isDirectory(target))
                return Files.createTempDirectory(Files.createDirectories(target.resolve("operator-e2e")), stamp + "-");
            return Files.createTempDirectory("queenkv-operator-e2e-" + stamp + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
