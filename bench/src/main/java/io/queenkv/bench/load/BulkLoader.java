package io.queenkv.bench.load;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * Sends {@code calls} numbered calls with up to {@code inFlight} outstanding, retrying a failed call a
 * few times: how data is loaded before a measurement (not itself a measured workload).
 */
public final class BulkLoader {
    private static final int ATTEMPTS = 5;

    private BulkLoader() {}

    /** Runs call(0) … call(calls - 1); the wall time it took. Throws if a call fails every attempt. */
    public static Duration load(int calls, int inFlight, IntFunction<CompletableFuture<?>> call) {
        long began = System.nanoTime();
        Semaphore permits = new Semaphore(inFlight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            for (int i = 0; i < calls && failure.get() == null; i++) {
                permits.acquire();
                withRetries(i, call, ATTEMPTS).whenComplete((ok, e) -> {
                    if (e != null) failure.compareAndSet(null, e);
                    permits.release();
                });
            }
            if (!permits.tryAcquire(inFlight, 2, TimeUnit.MINUTES))
                throw new IllegalStateException("bulk load: calls still unanswered after 2 minutes");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (failure.get() != null) throw new IllegalStateException("bulk load failed", failure.get());
        return Duration.ofNanos(System.nanoTime() - began);
    }

    private static CompletableFuture<?> withRetries(int index, IntFunction<CompletableFuture<?>> call, int attemptsLeft) {
        CompletableFuture<?> attempt;
        try {
            attempt = call.apply(index);
        } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
        }
        if (attemptsLeft <= 1) return attempt;
        return attempt.handle((ok, e) -> e == null ? CompletableFuture.completedFuture(ok)
                        : CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS))
                                .thenCompose(x -> withRetries(index, call, attemptsLeft - 1)))
                .thenCompose(f -> f);
    }
}
