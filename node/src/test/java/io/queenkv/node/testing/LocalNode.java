package io.queenkv.node.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.awaitility.Awaitility;

import io.queenkv.node.Node;
import io.queenkv.node.config.NodeConfig;

/**
 * A real one-node cluster in this JVM: real Ratis on a free port, real HTTP on another, data in a
 * directory of the test's choosing. {@link #http} sends real requests to it.
 */
public final class LocalNode implements AutoCloseable {
    public final Node node;
    public final String baseUrl;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private LocalNode(Node node) {
        this.node = node;
        this.baseUrl = "http://127.0.0.1:" + node.httpPort();
    }

    /** Starts a node with data in {@code dataDir}, {@code extraEnv} overriding the defaults, and waits until it is ready. */
    public static LocalNode start(Path dataDir, Map<String, String> extraEnv) throws IOException {
        Map<String, String> env = new HashMap<>();
        env.put("QUEEN_KV_HTTP_PORT", Integer.toString(freePort()));
        env.put("QUEEN_KV_RAFT_PORT", Integer.toString(freePort()));
        env.put("QUEEN_KV_DATA_DIR", dataDir.toString());
        env.putAll(extraEnv);
        LocalNode local = new LocalNode(new Node(NodeConfig.fromEnv(env)));
        local.awaitReady();
        return local;
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
