package io.queenkv.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.queenkv.bench.load.Measurement;
import io.queenkv.bench.report.Results.BenchReport;
import io.queenkv.bench.report.Results.CpuPerOp;
import io.queenkv.bench.report.Results.LoadedClusterResult;
import io.queenkv.bench.report.Results.SystemResult;
import io.queenkv.bench.report.Results.WorkloadResult;

/** The tables a run prints and the README shows, built from a report. */
public final class ResultsTables {
    public static final String QUEEN_KV = "queen-kv";

    private ResultsTables() {}

    /** Per workload: each system's ops/s, p50, p99, p99.9 (ms), then Queen KV ÷ each etcd in ops/s. */
    public static Table throughput(BenchReport report) {
        List<SystemResult> systems = report.systems();
        SystemResult queen = queenKv(systems);
        List<SystemResult> etcds = systems.stream().filter(s -> !s.system().equals(QUEEN_KV)).toList();
        List<String> header = new ArrayList<>(List.of("workload"));
        for (SystemResult s : systems)
            for (String col : List.of("ops/s", "p50", "p99", "p99.9")) header.add(s.system() + " " + col);
        if (queen != null) for (SystemResult e : etcds) header.add("ratio vs " + e.system());

        List<List<String>> rows = new ArrayList<>();
        for (String workload : workloadIds(systems)) {
            List<String> row = new ArrayList<>(List.of(workload));
            for (SystemResult s : systems) {
                WorkloadResult w = s.workload(workload);
                Measurement m = w == null ? null : w.measurement();
                if (m == null) {
                    row.addAll(List.of("—", "—", "—", "—"));
                } else {
                    row.add(opsPerSecond(m.opsPerSecond()));
                    row.add(millis(m.p50Millis()));
                    row.add(millis(m.p99Millis()));
                    row.add(millis(m.p999Millis()));
                }
            }
            if (queen != null)
                for (SystemResult e : etcds)
                    row.add(Ratio.format(Ratio.throughput(measurementOf(queen, workload), measurementOf(e, workload))));
            rows.add(row);
        }
        return new Table(header, rows, true);
    }

    /**
     * Per workload: CPU time per answered operation of each system's three members together and of
     * the load generator, then Queen KV's members' CPU per operation ÷ each etcd's (below 1: Queen KV
     * spends less). Null when no workload of the report measured CPU (reports written before it was).
     */
    public static Table cpuPerOp(BenchReport report) {
        List<SystemResult> systems = report.systems();
        if (systems.stream().flatMap(s -> s.workloads().stream()).allMatch(w -> w.cpu() == null)) return null;
        SystemResult queen = queenKv(systems);
        List<SystemResult> etcds = systems.stream().filter(s -> !s.system().equals(QUEEN_KV)).toList();
        List<String> header = new ArrayList<>(List.of("workload"));
        for (SystemResult s : systems) {
            header.add(s.system() + " members µs/op");
            header.add(s.system() + " load generator µs/op");
        }
        if (queen != null) for (SystemResult e : etcds) header.add("members CPU/op vs " + e.system());
        List<List<String>> rows = new ArrayList<>();
        for (String workload : workloadIds(systems)) {
            List<String> row = new ArrayList<>(List.of(workload));
            for (SystemResult s : systems) {
                CpuPerOp cpu = cpuOf(s, workload);
                row.add(cpu == null ? "—" : micros(cpu.membersMicros()));
                row.add(cpu == null ? "—" : micros(cpu.loadGeneratorMicros()));
            }
            if (queen != null)
                for (SystemResult e : etcds) {
                    CpuPerOp q = cpuOf(queen, workload), other = cpuOf(e, workload);
                    row.add(q == null || other == null || other.membersMicros() <= 0 ? "n/a"
                            : String.format(Locale.ROOT, "%.2f×", q.membersMicros() / other.membersMicros()));
                }
            rows.add(row);
        }
        return new Table(header, rows, true);
    }

    private static CpuPerOp cpuOf(SystemResult s, String workload) {
        WorkloadResult w = s.workload(workload);
        return w == null ? null : w.cpu();
    }

    static String micros(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    /** What each workload sends: Queen KV's call and etcd's nearest equivalent. */
    public static Table workloadNotes(BenchReport report) {
        List<List<String>> rows = new ArrayList<>();
        if (!report.systems().isEmpty()) // every system runs the same list
            for (WorkloadResult w : report.systems().get(0).workloads())
                rows.add(List.of(w.workload(), Integer.toString(w.inFlight()), w.description(), w.etcdEquivalent()));
        return new Table(List.of("workload", "in flight", "Queen KV", "etcd"), rows, false);
    }

    /**
     * Per system: the machine's load average before → after, a fresh cluster's start to all three ready, then with N keys loaded: the load rate,
     * memory, a follower's restart to ready, the leader's snapshot and put p99 around it; and the put
     * throughput per 5 s right after a cold start.
     */
    public static Table loadedCluster(BenchReport report) {
        List<List<String>> rows = new ArrayList<>();
        for (SystemResult s : report.systems()) {
            LoadedClusterResult l = s.loaded();
            List<Measurement> cold = s.coldStart();
            String coldBuckets = cold.isEmpty() ? "—" : String.join(" ", cold.stream().map(m -> opsPerSecond(m.opsPerSecond())).toList());
            String start = String.format(Locale.ROOT, "%.1f s", s.startSeconds());
            String load = s.loadAverageBefore() <= 0 && s.loadAverageAfter() <= 0 ? "—" // not recorded
                    : String.format(Locale.ROOT, "%.0f → %.0f", s.loadAverageBefore(), s.loadAverageAfter());
            if (l == null) {
                rows.add(List.of(s.system(), load, start, "—", "—", "—", "—", "—", "—", "—", "—", "—", coldBuckets));
                continue;
            }
            rows.add(List.of(s.system(), load, start,
                    String.format(Locale.ROOT, "%,d", l.keys()),
                    opsPerSecond(l.keys() / Math.max(l.loadSeconds(), 1e-9)),
                    String.format(Locale.ROOT, "%.0f MiB", l.rssBytes() / (1024.0 * 1024.0)),
                    l.heldPuts() == null ? "—" : opsPerSecond(l.heldPuts().opsPerSecond()), // older reports have none
                    l.heldPuts() == null ? "—" : millis(l.heldPuts().p99Millis()),
                    String.format(Locale.ROOT, "%.1f s", l.restartToReadySeconds()),
                    String.format(Locale.ROOT, "%.2f s", l.snapshot().snapshotSeconds()),
                    millis(l.snapshot().before().p99Millis()),
                    millis(l.snapshot().during().p99Millis()),
                    coldBuckets));
        }
        return new Table(List.of("system", "machine load", "fresh start→ready", "keys", "load keys/s", "RSS of 3",
                "puts held ops/s", "puts held p99", "restart→ready", "snapshot",
                "put p99 before", "put p99 during snapshot", "put ops/s per 5 s after a cold start"), rows, true);
    }

    private static Measurement measurementOf(SystemResult s, String workload) {
        WorkloadResult w = s.workload(workload);
        return w == null ? null : w.measurement();
    }

    static SystemResult queenKv(List<SystemResult> systems) {
        return systems.stream().filter(s -> s.system().equals(QUEEN_KV)).findFirst().orElse(null);
    }

    /** The workloads in the order the first system ran them (all systems run the same list). */
    static List<String> workloadIds(List<SystemResult> systems) {
        return systems.isEmpty() ? List.of() : systems.get(0).workloads().stream().map(WorkloadResult::workload).toList();
    }

    static String opsPerSecond(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    static String millis(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : v >= 10 ? String.format(Locale.ROOT, "%.1f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }
}
