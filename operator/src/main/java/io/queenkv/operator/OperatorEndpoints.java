package io.queenkv.operator;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.javaoperatorsdk.operator.RuntimeInfo;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The operator's own HTTP port, for the kubelet and Prometheus: {@code /healthz} (200 once the operator
 * started, and while a replica waits for the lease), {@code /readyz} (also every watch of the replica
 * holding the lease healthy) and {@code /metrics} (JOSDK's reconcile metrics and the JVM's, in the
 * Prometheus text format). Served by the JDK's own HTTP server on two threads.
 */
final class OperatorEndpoints implements AutoCloseable {
    static final String PORT = "HEALTH_PORT";
    static final int DEFAULT_PORT = 8080;

    private final HttpServer server;

    OperatorEndpoints(int port, RuntimeInfo runtime, PrometheusMeterRegistry registry) throws IOException {
        this(port, runtime::isStarted, () -> runtime.isStarted() && runtime.allEventSourcesAreHealthy(),
                () -> runtime.isStarted() ? "unhealthy watches " + runtime.unhealthyEventSources() : "not started", registry);
    }

    OperatorEndpoints(int port, BooleanSupplier live, BooleanSupplier ready, Supplier<String> whyNotReady, PrometheusMeterRegistry registry)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 0);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "operator-endpoints");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/healthz", ex -> answer(ex, live.getAsBoolean() ? 200 : 503, "text/plain", live.getAsBoolean() ? "ok" : "starting"));
        server.createContext("/readyz", ex -> {
            boolean ok = ready.getAsBoolean();
            answer(ex, ok ? 200 : 503, "text/plain", ok ? "ok" : "not ready: " + whyNotReady.get());
        });
        server.createContext("/metrics", ex -> answer(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Answers {@code body} on its own path (404 below it); HEAD without the body. */
    private static void answer(HttpExchange ex, int status, String type, String body) throws IOException {
        try (ex) {
            boolean known = ex.getRequestURI().getPath().equals(ex.getHttpContext().getPath());
            byte[] bytes = (known ? body : "not found").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", type);
            boolean head = "HEAD".equals(ex.getRequestMethod());
            ex.sendResponseHeaders(known ? status : 404, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
