package io.queenkv.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Sends one call to {@code POST /api/v1/kv} with retries and failover, without blocking: every
 * wait is a delayed executor, every exchange {@link HttpClient#sendAsync}. The endpoint that last
 * answered is where the next call starts.
 */
final class Transport {
    static final String PATH = "/api/v1/kv";

    private final List<URI> endpoints;
    private final HttpClient http;
    private final String token;
    private final Duration requestTimeout;
    private final RetryPolicy retry;
    private final Wire wire;
    private final AtomicInteger preferred = new AtomicInteger();

    Transport(List<URI> endpoints, HttpClient http, String token, Duration requestTimeout, RetryPolicy retry, Wire wire) {
        this.endpoints = List.copyOf(endpoints);
        this.http = http;
        this.token = token;
        this.requestTimeout = requestTimeout;
        this.retry = retry;
        this.wire = wire;
    }

    /** The endpoint the next call goes to first. */
    URI preferredEndpoint() {
        return endpoints.get(preferred.get());
    }

    /**
     * The 200 body of the call; fails with {@link QueenKvRefusedException} (4xx, or 429 after the
     * last attempt) or {@link QueenKvUnavailableException}. {@code idempotencyKey} is null for a
     * read-only call.
     */
    CompletableFuture<JsonNode> post(byte[] body, String idempotencyKey) {
        CompletableFuture<JsonNode> promise = new CompletableFuture<>();
        attempt(body, idempotencyKey, 1, preferred.get(), promise);
        return promise;
    }

    private void attempt(byte[] body, String idempotencyKey, int n, int endpoint, CompletableFuture<JsonNode> promise) {
        HttpRequest request;
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(endpoints.get(endpoint).resolve(PATH))
                    .timeout(requestTimeout)
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            if (token != null) b.header("Authorization", "Bearer " + token);
            if (idempotencyKey != null) b.header("Idempotency-Key", idempotencyKey);
            request = b.build();
        } catch (RuntimeException e) {
            promise.completeExceptionally(new QueenKvException("could not build the request: " + e.getMessage(), e));
            return;
        }
        CompletableFuture<HttpResponse<byte[]>> sent;
        try {
            sent = http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (RuntimeException e) {
            promise.completeExceptionally(new QueenKvException("could not send the request: " + e.getMessage(), e));
            return;
        }
        sent.whenComplete((response, error) -> {
            try {
                handle(body, idempotencyKey, n, endpoint, promise, response, error);
            } catch (RuntimeException e) {
                promise.completeExceptionally(e);
            }
        });
    }

    private void handle(byte[] body, String idempotencyKey, int n, int endpoint, CompletableFuture<JsonNode> promise,
                        HttpResponse<byte[]> response, Throwable error) {
        RetryPolicy.Failure failure;
        String reason;
        Duration retryAfter = null;
        Throwable cause = null;
        if (error != null) {
            cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof HttpConnectTimeoutException) {
                failure = RetryPolicy.Failure.CONNECTION_FAILED;
                reason = "connection_failed";
            } else if (cause instanceof HttpTimeoutException) {
                failure = RetryPolicy.Failure.TIMEOUT;
                reason = "timeout";
            } else if (cause instanceof IOException) {
                failure = RetryPolicy.Failure.CONNECTION_FAILED;
                reason = "connection_failed";
            } else {
                promise.completeExceptionally(new QueenKvException("the request failed: " + cause, cause));
                return;
            }
        } else {
            int status = response.statusCode();
            if (status == 200) {
                preferred.set(endpoint);
                try {
                    promise.complete(wire.parse(response.body()));
                } catch (IOException e) {
                    promise.completeExceptionally(new QueenKvException("the node answered 200 with a body that is not JSON", e));
                }
                return;
            }
            retryAfter = retryAfter(response).orElse(null);
            if (status == 429) {
                failure = RetryPolicy.Failure.RATE_LIMITED;
                reason = "rate_limited";
            } else if (status >= 500) {
                failure = RetryPolicy.Failure.UNAVAILABLE;
                reason = wire.unavailableReason(status, response.body());
            } else {
                preferred.set(endpoint);
                promise.completeExceptionally(wire.refusal(status, response.body(), retryAfter));
                return;
            }
            if (status == 429 && n >= retry.maxAttempts()) {
                promise.completeExceptionally(wire.refusal(status, response.body(), retryAfter));
                return;
            }
        }
        Optional<Duration> delay = retry.delayAfter(n, failure, retryAfter, ThreadLocalRandom.current().nextDouble());
        if (delay.isEmpty()) {
            promise.completeExceptionally(new QueenKvUnavailableException(
                    "no answer after " + n + " attempt(s), last from " + endpoints.get(endpoint) + ": " + reason
                            + (idempotencyKey != null ? "; the outcome of the write is unknown (Idempotency-Key " + idempotencyKey + ")" : ""),
                    reason, n, idempotencyKey, cause));
            return;
        }
        int next = failure.switchesEndpoint() ? (endpoint + 1) % endpoints.size() : endpoint;
        if (failure.switchesEndpoint()) preferred.compareAndSet(endpoint, next);
        CompletableFuture.delayedExecutor(delay.get().toMillis(), TimeUnit.MILLISECONDS)
                .execute(() -> attempt(body, idempotencyKey, n + 1, next, promise));
    }

    private static Optional<Duration> retryAfter(HttpResponse<?> response) {
        return response.headers().firstValue("Retry-After").flatMap(v -> {
            try {
                long seconds = Long.parseLong(v.trim());
                return seconds >= 0 ? Optional.of(Duration.ofSeconds(seconds)) : Optional.empty();
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }
}
