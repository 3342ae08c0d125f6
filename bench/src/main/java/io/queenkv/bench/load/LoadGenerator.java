package io.queenkv.bench.load;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A closed-loop load: {@code inFlight} slots, each sending its next operation as soon as the previous
 * one is answered. Latencies go into an HdrHistogram {@link Recorder}, so a caller can cut the run
 * into windows ({@link #takeWindow}) while it keeps going: the measured window of a workload, the
 * seconds a snapshot takes, or the 5 s buckets after a cold start.
 */
public final class LoadGenerator implements AutoCloseable {
    /** After a failed operation a slot waits this long, so a refusing system is not hammered in a tight loop. */
    private static final long ERROR_PAUSE_MILLIS = 10;
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(20);

    private final Workload workload;
    private final Recorder recorder = new Recorder(3);
    private final LongAdder errors = new LongAdder();
    private final CountDownLatch stopped;
    private final Executor afterError = CompletableFuture.delayedExecutor(ERROR_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
    private volatile boolean running = true;
    private volatile Throwable lastError;
    private Histogram windowHistogram;
    private long windowStartNanos;

    private LoadGenerator(Workload workload, int inFlight) {
        this.workload = workload;
        this.stopped = new CountDownLatch(inFlight);
    }

    /** Starts {@code inFlight} slots of {@code workload}; the first window starts now. */
    public static LoadGenerator start(Workload workload, int inFlight) {
        LoadGenerator load = new LoadGenerator(workload, inFlight);
        load.windowStartNanos = System.nanoTime();
        for (int slot = 0; slot < inFlight; slot++) load.send(slot);
        return load;
    }

    /** Runs {@code workload} for {@code ramp} unmeasured, then measures {@code window}, then stops. */
    public static Measurement run(Workload workload, int inFlight, Duration ramp, Duration window) {
        return run(workload, inFlight, ramp, window, () -> {}, () -> {});
    }

    /** As {@link #run(Workload, int, Duration, Duration)}, calling {@code windowStarts} and {@code windowEnds} at the measured window's edges. */
    public static Measurement run(Workload workload, int inFlight, Duration ramp, Duration window, Runnable windowStarts, Runnable windowEnds) {
        try (LoadGenerator load = start(workload, inFlight)) {
            sleep(ramp);
            load.takeWindow();
            windowStarts.run();
            sleep(window);
            Measurement m = load.takeWindow();
            windowEnds.run();
            return m;
        }
    }

    private void send(int slot) {
        if (!running) {
            stopped.countDown();
            return;
        }
        long started = System.nanoTime();
        CompletableFuture<?> op;
        try {
            op = workload.next(slot);
        } catch (RuntimeException e) {
            op = CompletableFuture.failedFuture(e);
        }
        op.whenComplete((answer, failure) -> {
            if (failure == null) {
                recorder.recordValue(Math.max(1, (System.nanoTime() - started) / 1000));
                send(slot);
            } else {
                errors.increment();
                lastError = failure;
                afterError.execute(() -> send(slot));
            }
        });
    }

    /** The window since the previous call (or the start): its operations, errors and latencies. */
    public synchronized Measurement takeWindow() {
        long now = System.nanoTime();
        windowHistogram = recorder.getIntervalHistogram(windowHistogram);
        Measurement m = Measurement.of(windowHistogram, errors.sumThenReset(), Duration.ofNanos(now - windowStartNanos));
        windowStartNanos = now;
        return m;
    }

    /** The last failure any slot saw, for the log (null if none). */
    public Throwable lastError() {
        return lastError;
    }

    /** Stops sending and waits (bounded) for the operations in flight to be answered. */
    @Override
    public void close() {
        running = false;
        try {
            if (!stopped.await(DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
                System.out.println("  (some operations were still unanswered " + DRAIN_TIMEOUT.toSeconds() + " s after the load stopped)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
