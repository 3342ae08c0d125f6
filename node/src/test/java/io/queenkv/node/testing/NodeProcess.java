package io.queenkv.node.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;

/**
 * A node in its own JVM, started from this test's class path with {@code io.queenkv.node.Main}, so
 * that it can be stopped with SIGTERM or killed with SIGKILL like a real deployment.
 */
public final class NodeProcess implements AutoCloseable {
    private final Map<String, String> env;
    private final Path log;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Process process;
    public final String baseUrl;

    public NodeProcess(Path dataDir, Path log, Map<String, String> extraEnv) throws IOException {
        this.env = new HashMap<>();
        int httpPort = LocalNode.freePort();
        env.put("QUEEN_KV_HTTP_PORT", Integer.toString(httpPort));
        env.put("QUEEN_KV_RAFT_PORT", Integer.toString(LocalNode.freePort()));
        env.put("QUEEN_KV_DATA_DIR", dataDir.toString());
        env.putAll(extraEnv);
        this.log = log;
        this.baseUrl = "http://127.0.0.1:" + httpPort;
    }

    /** Starts the JVM and waits until the node answers ready. */
    public NodeProcess start() throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                "io.queenkv.node.Main"));
        pb.environment().putAll(env);
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = pb.start();
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    if (!process.isAlive()) throw new IllegalStateException("node exited with " + process.exitValue() + "; see " + log);
                    return status("/readyz") == 200;
                });
        return this;
    }

    /** SIGTERM, then wait for a clean exit. */
    public int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) throw new IllegalStateException("node did not stop on SIGTERM");
        return process.exitValue();
    }

    /** SIGKILL: no shutdown hook, no final snapshot. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    public HttpResponse<String> send(String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("content-type", "application/json");
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private int status(String path) {
        try {
            return send("GET", path, null).statusCode();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) kill();
    }
}
