package io.queenkv.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.client.QueenKvException;
import io.queenkv.client.QueenKvRefusedException;
import io.queenkv.client.QueenKvUnavailableException;

/**
 * The routes the SDK does not cover — {@code GET /api/v1/cluster} and {@code /api/v1/admin/*} —
 * over the SDK's HttpClient, failing with the SDK's exceptions. Each call goes to the endpoints in
 * order and moves on to the next after a connection failure, a timeout, a 5xx or a 429; any other
 * answer is final. The nodes hand admin operations to the leader themselves, so any member will do.
 */
final class AdminClient {
    /** Membership changes and leadership transfers wait for a commit (a node gives up after 20 s). */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    /** A 200 answer and the endpoint that gave it. */
    record Answer(URI endpoint, JsonNode body) {}

    /** A backup written to a file, with what its headers said. {@code keys} is -1 if the node did not say. */
    record Download(URI endpoint, long logIndex, long keys) {}

    private final List<URI> endpoints;
    private final HttpClient http;
    private final String token;

    AdminClient(List<URI> endpoints, HttpClient http, String token) {
        this.endpoints = List.copyOf(endpoints);
        this.http = http;
        this.token = token;
    }

    Answer get(String path) {
        return send("GET", path, null);
    }

    Answer post(String path, JsonNode body) {
        return send("POST", path, body);
    }

    Answer put(String path, JsonNode body) {
        return send("PUT", path, body);
    }

    Answer delete(String path) {
        return send("DELETE", path, null);
    }

    private Answer send(String method, String path, JsonNode body) {
        return onEachEndpoint(endpoint -> {
            HttpRequest.Builder b = request(endpoint, path).timeout(CALL_TIMEOUT)
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(Json.text(body)));
            if (body != null) b.header("Content-Type", "application/json");
            HttpResponse<byte[]> response = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200) refuseOrTryNext(response.statusCode(), response.body());
            try {
                return new Answer(endpoint, Json.MAPPER.readTree(response.body()));
            } catch (IOException e) {
                throw new QueenKvException(endpoint + " answered 200 with a body that is not JSON", e);
            }
        });
    }

    /**
     * Streams {@code GET path} into {@code file} (created or replaced). A broken download moves on to
     * the next endpoint; a file that cannot be written ends the call.
     */
    Download download(String path, Path file) {
        return onEachEndpoint(endpoint -> {
            // No request timeout: a large store streams for as long as it takes.
            HttpResponse<InputStream> response = http.send(request(endpoint, path).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = response.body()) {
                if (response.statusCode() != 200) refuseOrTryNext(response.statusCode(), in.readAllBytes());
                copy(in, file);
            }
            return new Download(endpoint, header(response, "X-Queen-KV-Log-Index"), header(response, "X-Queen-KV-Keys"));
        });
    }

    private static void copy(InputStream in, Path file) throws IOException {
        byte[] buffer = new byte[1 << 16];
        try (OutputStream out = Files.newOutputStream(file)) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                try {
                    out.write(buffer, 0, n);
                } catch (IOException e) {
                    throw CliFailure.file(file + ": cannot be written: " + e.getMessage(), e);
                }
            }
        }
    }

    private static long header(HttpResponse<?> response, String name) {
        try {
            return response.headers().firstValue(name).map(String::trim).map(Long::parseLong).orElse(-1L);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private HttpRequest.Builder request(URI endpoint, String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(endpoint + path)).header("Accept", "application/json");
        if (token != null) b.header("Authorization", "Bearer " + token);
        return b;
    }

    /** One attempt on one endpoint. */
    private interface Exchange<T> {
        T on(URI endpoint) throws IOException, InterruptedException;
    }

    /** An answer after which the next endpoint is tried. */
    private static final class TryNext extends IOException {
        final String reason;

        TryNext(String reason, String message) {
            super(message);
            this.reason = reason;
        }
    }

    private <T> T onEachEndpoint(Exchange<T> exchange) {
        List<String> failures = new ArrayList<>();
        String reason = null;
        IOException last = null;
        for (URI endpoint : endpoints) {
            try {
                return exchange.on(endpoint);
            } catch (TryNext e) {
                reason = e.reason;
                last = e;
                failures.add(endpoint + ": " + e.getMessage());
            } catch (HttpConnectTimeoutException e) {
                reason = "connection_failed";
                last = e;
                failures.add(endpoint + ": connection timed out");
            } catch (HttpTimeoutException e) {
                reason = "timeout";
                last = e;
                failures.add(endpoint + ": no answer within " + CALL_TIMEOUT.toSeconds() + " s");
            } catch (IOException e) {
                reason = "connection_failed";
                last = e;
                failures.add(endpoint + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new QueenKvException("interrupted while waiting for " + endpoint, e);
            }
        }
        throw new QueenKvUnavailableException("no endpoint answered: " + String.join("; ", failures), reason, failures.size(), null, last);
    }

    /** After a 429 or 5xx the next endpoint is tried; any other status is the node's refusal. */
    private static void refuseOrTryNext(int status, byte[] body) throws TryNext {
        String error = "http_" + status, reason = error, detail = "";
        try {
            JsonNode json = Json.MAPPER.readTree(body);
            if (json != null && json.isObject()) {
                error = json.path("error").asText(error);
                reason = json.path("reason").asText(reason);
                detail = json.path("detail").asText("");
            }
        } catch (IOException notJson) {
            detail = new String(body, StandardCharsets.UTF_8);
        }
        if (status == 429 || status >= 500) throw new TryNext(reason, status + " " + reason + (detail.isEmpty() ? "" : " (" + detail + ")"));
        throw new QueenKvRefusedException(status, error, reason, detail, null);
    }
}
