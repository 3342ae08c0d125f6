package io.queenkv.e2e.operator;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.queenkv.operator.tls.CertificateAuthority;
import io.queenkv.operator.tls.ClusterTrust;
import io.queenkv.operator.tls.IssuedCertificate;

/**
 * A real Kubernetes control plane on loopback, without containers: etcd, {@code kube-apiserver} and
 * {@code kube-controller-manager} built by {@code e2e/control-plane/build.sh} from Go modules
 * ({@code go.etcd.io/etcd/server/v3}, {@code k8s.io/kubernetes}). The API server serves TLS with a certificate of a CA made
 * here, signs service-account tokens with a key made here, authorizes with RBAC and knows one identity
 * of its own: {@value #ADMIN_USER} (group {@code system:masters}) with a static token. The controller
 * manager runs only the controllers the operator's resources meet; there is no scheduler and no kubelet
 * ({@link LocalKubelet} plays the kubelet). Everything lives in {@code dir}; {@link #close()} stops it.
 */
final class ControlPlane implements AutoCloseable {
    static final String ADMIN_USER = "queenkv-e2e-admin";
    /**
     * What the operator's resources need: the StatefulSet controller creates pods and claims, the garbage
     * collector deletes what an owner reference says is owned, the disruption controller keeps the PDB's
     * status (evictions read it), endpoints for the Services, the ServiceAccount controller the
     * {@code default} ServiceAccount every pod needs, and the claim protection controller lifts the
     * finalizer the API server puts on every claim once no pod uses it.
     */
    static final List<String> CONTROLLERS = List.of("statefulset-controller", "garbage-collector-controller", "disruption-controller",
            "endpoints-controller", "endpointslice-controller", "serviceaccount-controller", "persistentvolumeclaim-protection-controller",
            "job-controller", "cronjob-controller");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    /** The binaries and etcd this needs, or why they are not there. */
    record Binaries(Path etcd, Path apiServer, Path controllerManager, Path kubectl, Path helm) {
        static Binaries locate() {
            Path bin = binDir();
            return new Binaries(bin.resolve("etcd"), bin.resolve("kube-apiserver"), bin.resolve("kube-controller-manager"), bin.resolve("kubectl"),
                    bin.resolve("helm"));
        }

        /** Null when everything is there, else what is missing and how to get it. */
        String missing() {
            List<String> missing = new ArrayList<>();
            for (Path p : List.of(etcd, apiServer, controllerManager, kubectl, helm))
                if (!Files.isExecutable(p)) missing.add(p.toString());
            return missing.isEmpty() ? null
                    : "no real control plane here: missing " + String.join(", ", missing) + " (build them: e2e/control-plane/build.sh, needs Go)";
        }
    }

    /** {@code e2e/control-plane/target/bin}, or {@code -Dqueenkv.controlPlaneBin}. */
    static Path binDir() {
        String p = System.getProperty("queenkv.controlPlaneBin");
        return p != null && !p.isBlank() ? Path.of(p) : LocalCluster.e2eDir().resolve("control-plane/target/bin").toAbsolutePath().normalize();
    }

    final Binaries binaries;
    final Path dir;
    final URI server;
    final Path kubeconfig;
    final String caPem;
    private final String adminToken = UUID.randomUUID().toString();
    private final List<Process> processes = new ArrayList<>();

    private ControlPlane(Binaries binaries, Path dir) {
        this.binaries = binaries;
        this.dir = dir;
        int etcdClient = freePort(), etcdPeer = freePort(), apiPort = freePort();
        this.server = URI.create("https://127.0.0.1:" + apiPort);
        SecureRandom random = new SecureRandom();
        Instant now = Instant.now();
        CertificateAuthority ca = CertificateAuthority.create("queenkv-e2e-control-plane-ca", now, Duration.ofDays(1), random);
        IssuedCertificate serving = ca.issue("kube-apiserver", List.of("localhost", "127.0.0.1"), now, Duration.ofDays(1), random);
        // Any key pair signs service-account tokens; the certificate around it is not used.
        IssuedCertificate serviceAccountKey = ca.issue("service-accounts", List.of("localhost"), now, Duration.ofDays(1), random);
        this.caPem = ca.certificatePem();
        this.kubeconfig = dir.resolve("admin.kubeconfig");
        Path logs = dir.resolve("logs");
        try {
            Files.createDirectories(logs);
            write("ca.crt", caPem);
            write("apiserver.crt", serving.certificatePem());
            write("apiserver.key", serving.keyPem());
            write("sa.key", serviceAccountKey.keyPem());
            write("sa.pub", "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(serviceAccountKey.certificate().getPublicKey().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n");
            write("tokens.csv", adminToken + "," + ADMIN_USER + "," + ADMIN_USER + ",system:masters\n");
            write("admin.kubeconfig", kubeconfigYaml());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }

        String etcdUrl = "http://127.0.0.1:" + etcdClient;
        start("etcd", List.of(binaries.etcd().toString(), "--name=e2e", "--data-dir=" + dir.resolve("etcd"),
                "--listen-client-urls=" + etcdUrl, "--advertise-client-urls=" + etcdUrl,
                "--listen-peer-urls=http://127.0.0.1:" + etcdPeer, "--initial-advertise-peer-urls=http://127.0.0.1:" + etcdPeer,
                "--initial-cluster=e2e=http://127.0.0.1:" + etcdPeer, "--listen-metrics-urls="));
        start("kube-apiserver", List.of(binaries.apiServer().toString(),
                "--etcd-servers=" + etcdUrl,
                "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + apiPort,
                "--cert-dir=" + dir.resolve("apiserver-certs"),
                "--tls-cert-file=" + dir.resolve("apiserver.crt"), "--tls-private-key-file=" + dir.resolve("apiserver.key"),
                "--token-auth-file=" + dir.resolve("tokens.csv"),
                "--authorization-mode=RBAC",
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file=" + dir.resolve("sa.pub"), "--service-account-signing-key-file=" + dir.resolve("sa.key"),
                "--service-cluster-ip-range=10.96.0.0/16",
                // the default reconciler would publish the API server's address in the kubernetes Service, and refuses loopback
                "--endpoint-reconciler-type=none",
                "--profiling=false"));
        awaitReady();
        start("kube-controller-manager", List.of(binaries.controllerManager().toString(),
                "--kubeconfig=" + kubeconfig,
                "--controllers=" + String.join(",", CONTROLLERS),
                "--leader-elect=false", "--use-service-account-credentials=false",
                "--bind-address=127.0.0.1", "--secure-port=0",
                "--profiling=false"));
    }

    /** Starts a control plane in {@code dir}; the caller checks {@link Binaries#missing()} first. */
    static ControlPlane start(Binaries binaries, Path dir) {
        return new ControlPlane(binaries, dir);
    }

    String kubeconfigYaml() {
        String ca = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.UTF_8));
        return """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: e2e
                    cluster:
                      server: %s
                      certificate-authority-data: %s
                users:
                  - name: %s
                    user:
                      token: %s
                contexts:
                  - name: e2e
                    context:
                      cluster: e2e
                      user: %s
                current-context: e2e
                """.formatted(server, ca, ADMIN_USER, adminToken, ADMIN_USER);
    }

    Path log(String component) { return dir.resolve("logs").resolve(component + ".log"); }

    /** Runs {@code kubectl} (or {@code helm}) with the admin kubeconfig: the exit code and the combined output. */
    CommandResult run(Path binary, List<String> args, Duration timeout) {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(args);
        command.add("--kubeconfig=" + kubeconfig);
        try {
            Path out = Files.createTempFile(dir, binary.getFileName().toString(), ".out");
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
            // helm keeps its caches and repository config under $HOME otherwise
            for (String kind : List.of("CACHE", "CONFIG", "DATA")) pb.environment().put("HELM_" + kind + "_HOME", dir.resolve("helm").toString());
            Process p = pb.start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command + " did not finish within " + timeout);
            }
            String output = Files.readString(out);
            Files.delete(out);
            return new CommandResult(command, p.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    CommandResult kubectl(String... args) { return run(binaries.kubectl(), List.of(args), Duration.ofSeconds(60)); }

    CommandResult helm(String... args) { return run(binaries.helm(), List.of(args), Duration.ofMinutes(2)); }

    record CommandResult(List<String> command, int exitCode, String output) {
        CommandResult orThrow() {
            if (exitCode != 0) throw new IllegalStateException(String.join(" ", command) + " exited with " + exitCode + ":\n" + output);
            return this;
        }
    }

    // ---- processes ---------------------------------------------------------------------------------------

    private void start(String component, List<String> command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log(component).toFile()));
            processes.add(pb.start());
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("could not start " + component, e);
        }
    }

    /** {@code /readyz} answers 200: etcd is reached, the RBAC bootstrap roles and the priority levels exist. */
    private void awaitReady() {
        HttpClient http = HttpClient.newBuilder().sslContext(ClusterTrust.trusting(caPem)).connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest readyz = HttpRequest.newBuilder(server.resolve("/readyz")).header("Authorization", "Bearer " + adminToken)
                .timeout(Duration.ofSeconds(2)).build();
        try {
            await("kube-apiserver /readyz").atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(250)).until(() -> {
                for (Process p : processes)
                    if (!p.isAlive()) throw new IllegalStateException("a control plane process exited; see the logs in " + dir.resolve("logs"));
                try {
                    return http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                } catch (IOException e) {
                    return false;
                }
            });
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Stops the controller manager, the API server and etcd, in that order (and anything they started). */
    @Override
    public void close() {
        for (Process p : reversed(processes)) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            try {
                if (!p.waitFor(15, TimeUnit.SECONDS)) p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
    }

    private static List<Process> reversed(List<Process> list) {
        List<Process> r = new ArrayList<>(list);
        java.util.Collections.reverse(r);
        return r;
    }

    private void write(String file, String content) throws IOException {
        Files.writeString(dir.resolve(file), content, StandardCharsets.UTF_8);
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
