package io.queenkv.bench.cluster;

import java.time.Duration;

/** CPU time (user and system) a process has used so far, as the OS counts it. */
public final class ProcessCpu {
    private ProcessCpu() {}

    /** The CPU time of process {@code pid}; zero once it is gone (its time no longer counts anywhere). */
    public static Duration used(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).orElse(Duration.ZERO);
    }

    /** The CPU time of the load generator's own JVM. */
    public static Duration usedByThisProcess() {
        return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
    }
}
