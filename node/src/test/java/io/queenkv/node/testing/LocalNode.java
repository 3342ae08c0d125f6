package io.queenkv.node.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.awaitility.Awaitility;

import io.queenkv.node.Node;
import io.queenkv.node.config.NodeConfig;

/**
 * A real one-node cluster in this JVM: real Ratis on a free port, real HTTP on another, data in a
 * directory of the test's choosing. {@link #http} sends real requests to it. With the TLS
 * variables in its environment it is reached over https, trusting the CA file it was given.
 */
public final class LocalNode implements AutoCloseable {
    public final Node node;
    public final String baseUrl;
    /** The environment it was started with (to start it again on the same data). */
    public final Map<String, String> env;
    private final HttpClient client;

    private LocalNode(Map<String, String> env, SSLContext trust) throws IOException {
        this.env = Map.copyOf(env);
        this.node = new Node(NodeConfig.fromEnv(env));
        this.baseUrl = (trust == null ? "http" : "https") + "://127.0.0.1:" + node.httpPort();
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (trust != null) b.sslContext(trust);
        this.client = b.build();
    }

    /** Starts a node with data in {@code dataDir}, {@code extraEnv} overriding the defaults, and waits until it is ready. */
    public static LocalNode start(Path dataDir, Map<String, String> extraEnv) throws IOException {
        LocalNode local = startWithoutWaiting(dataDir, extraEnv);
        local.awaitReady();
        return local;
    }

    /** As {@link #start(Path, Map)}, without waiting until it is ready (a node that waits to be added, say). */
    public static LocalNode startWithoutWaiting(Path dataDir, Map<String, String> extraEnv) throws IOException {
        Map<String, String> env = new HashMap<>();
        int[] ports = freePorts(2);
        env.put("QUEEN_KV_HTTP_PORT", Integer.toString(ports[0]));
        env.put("QUEEN_KV_RAFT_PORT", Integer.toString(ports[1]));
        env.put("QUEEN_KV_DATA_DIR", dataDir.toString());
        env.putAll(extraEnv);
        String ca = env.get("QUEEN_KV_TLS_CA_FILE");
        return new LocalNode(env, ca == null ? null : trusting(Path.of(ca)));
    }

    /** Starts a node again with the environment (and so the data dir and ports) of one that was closed. */
    public static LocalNode restart(LocalNode closed) throws IOException {
        String ca = closed.env.get("QUEEN_KV_TLS_CA_FILE");
        return new LocalNode(closed.env, ca == null ? null : trusting(Path.of(ca)));
    }

    /**
     * Starts a cluster of {@code size} members in this JVM (ids n1…, data in {@code dir}/n1…),
     * each with {@code extraEnv}, and waits until every one is ready.
     */
    public static java.util.List<LocalNode> startCluster(Path dir, int size, Map<String, String> extraEnv) throws IOException {
        java.util.List<String> peers = new java.util.ArrayList<>();
        int[] free = freePorts(2 * size);
        int[][] ports = new int[size][];
        for (int i = 0; i < size; i++) {
            ports[i] = new int[] {free[2 * i], free[2 * i + 1]};
            peers.add("n" + (i + 1) + "=127.0.0.1:" + ports[i][0] + ":" + ports[i][1]);
        }
        java.util.List<LocalNode> nodes = new java.util.ArrayList<>();
        for (int i = 0; i < size; i++) {
            Map<String, String> env = new HashMap<>(extraEnv);
            env.put("QUEEN_KV_NODE_ID", "n" + (i + 1));
            env.put("QUEEN_KV_RAFT_PORT", Integer.toString(ports[i][0]));
            env.put("QUEEN_KV_HTTP_PORT", Integer.toString(ports[i][1]));
            env.put("QUEEN_KV_DATA_DIR", dir.resolve("n" + (i + 1)).toString());
            env.put("QUEEN_KV_PEERS", String.join(",", peers));
            env.putIfAbsent("QUEEN_KV_CLUSTER_ID", "local-test-cluster");
            nodes.add(new LocalNode(env, null));
        }
        for (LocalNode n : nodes) n.awaitReady();
        awaitSettled(nodes);
        return nodes;
    }

    /**
     * Waits until a leader counts every one of {@code nodes} as a voter, with no member being
     * re-admitted and no configuration change under way: a member slow to create its group at
     * bootstrap is re-admitted by the leader (a learner for a while), which a test must not take for
     * the state it set up.
     */
    public static void awaitSettled(java.util.List<LocalNode> nodes) {
        Awaitility.await("every member a voter").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            for (LocalNode n : nodes) {
                var division = n.node.replicated().membership();
                if (division.isEmpty() || !division.get().getInfo().isLeaderReady()) continue;
                var conf = division.get().getRaftConf();
                return conf.getPreviousPeers().isEmpty()
                        && conf.getCurrentPeers(org.apache.ratis.proto.RaftProtos.RaftPeerRole.LISTENER).isEmpty()
                        && nodes.stream().allMatch(m -> conf.getPeer(m.node.replicated().selfId()) != null);
            }
            return false;
        });
    }

    /** Waits (up to 30 s) for a member of {@code nodes} that leads and is ready to take writes. */
    public static LocalNode awaitLeader(java.util.List<LocalNode> nodes) {
        return Awaitility.await("a ready leader").atMost(Duration.ofSeconds(30)).until(() -> nodes.stream()
                .filter(n -> n.node.replicated().membership().map(d -> d.getInfo().isLeader() && d.getInfo().isLeaderReady()).orElse(false))
                .findFirst(), java.util.Optional::isPresent).orElseThrow();
    }

    public static LocalNode start(Path dataDir) throws IOException {
        return start(dataDir, Map.of());
    }

    public void awaitReady() {
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> get("/readyz").statusCode() == 200
                        && node.replicated().local(e -> e.settingsIndex()) > 0);
    }

    public HttpResponse<String> get(String path) {
        return http("GET", path, null, Map.of());
    }

    public HttpResponse<String> post(String path, String body) {
        return http("POST", path, body, Map.of());
    }

    /** Sends a request; {@code body} null sends none. */
    public HttpResponse<String> http(String method, String path, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("content-type", "application/json");
        headers.forEach(b::header);
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A TLS context that trusts the certificates of a PEM file (and nothing else). */
    public static SSLContext trusting(Path pemFile) {
        try (InputStream in = Files.newInputStream(pemFile)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) store.setCertificateEntry("ca-" + i++, c);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code n} distinct free ports: a port just closed can be handed out again by the next call. */
    public static int[] freePorts(int n) throws IOException {
        java.util.Set<Integer> ports = new java.util.LinkedHashSet<>();
        while (ports.size() < n) ports.add(freePort());
        return ports.stream().mapToInt(Integer::intValue).toArray();
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws IOException {
        node.close();
    }
}
