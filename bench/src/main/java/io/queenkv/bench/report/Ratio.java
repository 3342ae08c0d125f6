package io.queenkv.bench.report;

import java.util.OptionalDouble;

import io.queenkv.bench.load.Measurement;

/** Queen KV's throughput as a multiple of etcd's on the same workload. */
public final class Ratio {
    private Ratio() {}

    /** Empty when either side did not run the workload or etcd answered nothing. */
    public static OptionalDouble throughput(Measurement queenKv, Measurement etcd) {
        if (queenKv == null || etcd == null || etcd.opsPerSecond() <= 0) return OptionalDouble.empty();
        return OptionalDouble.of(queenKv.opsPerSecond() / etcd.opsPerSecond());
    }

    /** "0.46×", or "n/a". */
    public static String format(OptionalDouble ratio) {
        return ratio.isPresent() ? String.format(java.util.Locale.ROOT, "%.2f×", ratio.getAsDouble()) : "n/a";
    }
}
