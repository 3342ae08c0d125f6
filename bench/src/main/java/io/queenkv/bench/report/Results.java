package io.queenkv.bench.report;

import java.time.Duration;
import java.util.List;

import io.queenkv.bench.load.Measurement;

/** The records a run produces; {@link BenchReport} is what the JSON file holds. */
public final class Results {
    private Results() {}

    /**
     * One workload on one system; {@code measurement} is null when the system has no such call, and
     * {@code cpu} too (and in reports written before it was measured).
     */
    public record WorkloadResult(String workload, int inFlight, String description, String etcdEquivalent,
                                 Measurement measurement, CpuPerOp cpu) {}

    /**
     * CPU time per answered operation over a measured window, in microseconds: the three members'
     * processes together, and the load generator's JVM. Steadier than throughput on a shared machine,
     * and it says what each answer costs whichever process waits for the CPU.
     */
    public record CpuPerOp(double membersMicros, double loadGeneratorMicros) {
        public static CpuPerOp of(Duration members, Duration loadGenerator, long ops) {
            return ops == 0 ? null : new CpuPerOp(members.toNanos() / 1e3 / ops, loadGenerator.toNanos() / 1e3 / ops);
        }
    }

    /** Puts (256 B, 64 in flight) in the 5 s before a snapshot on the leader, and while it was being taken. */
    public record SnapshotWindow(double snapshotSeconds, Measurement before, Measurement during) {}

    /** The measurements on a cluster holding {@code keys} keys of 256 B. */
    public record LoadedClusterResult(int keys, double loadSeconds, long rssBytes, double restartToReadySeconds,
                                      SnapshotWindow snapshot, Measurement heldPuts) {}

    /**
     * Everything measured on one system. {@code coldStart} holds the 5 s windows of puts right after a
     * fresh cluster was ready; {@code loaded} is null when the run loaded no keys. The machine's 1-minute
     * load average before and after says how much else was running (the machine may be shared).
     */
    public record SystemResult(String system, String label, String serverVersion, double startSeconds,
                               List<Measurement> coldStart, List<WorkloadResult> workloads, LoadedClusterResult loaded,
                               double loadAverageBefore, double loadAverageAfter) {

        public WorkloadResult workload(String id) {
            return workloads.stream().filter(w -> w.workload().equals(id)).findFirst().orElse(null);
        }
    }

    public record Machine(int cores, long memoryBytes, String os, String kernel, String java) {}

    public record Settings(double durationSeconds, double rampSeconds, double warmupSeconds, double coldStartSeconds,
                           Integer inFlightOverride, int keys, String queenKvNodeHeap,
                           String queenKvNodeJvmOptions, String queenKvNodeJava) {}

    public record BenchReport(String startedAt, String finishedAt, Machine machine, Settings settings,
                              List<SystemResult> systems, List<String> notes) {}
}
