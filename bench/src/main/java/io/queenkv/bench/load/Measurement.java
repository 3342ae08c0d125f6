package io.queenkv.bench.load;

import java.time.Duration;

import org.HdrHistogram.Histogram;

/**
 * What one measured window gave: answered operations (failed ones are counted apart and not in the
 * latencies), their rate over the window, and latency percentiles in milliseconds.
 */
public record Measurement(long ops, long errors, double seconds, double opsPerSecond,
                          double p50Millis, double p99Millis, double p999Millis, double maxMillis) {

    /** A histogram of latencies in microseconds, recorded over {@code window}. */
    public static Measurement of(Histogram micros, long errors, Duration window) {
        double seconds = window.toNanos() / 1e9;
        long ops = micros.getTotalCount();
        return new Measurement(ops, errors, seconds, seconds > 0 ? ops / seconds : 0,
                millis(micros, 50.0), millis(micros, 99.0), millis(micros, 99.9),
                ops == 0 ? 0 : micros.getMaxValue() / 1000.0);
    }

    private static double millis(Histogram micros, double percentile) {
        return micros.getTotalCount() == 0 ? 0 : micros.getValueAtPercentile(percentile) / 1000.0;
    }
}
