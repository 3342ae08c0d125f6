package io.queenkv.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.JarFile;

import io.queenkv.bench.cluster.AotCache;
import io.queenkv.bench.cluster.Clusters;
import io.queenkv.bench.cluster.LocalCluster;
import io.queenkv.bench.cluster.ProcessCpu;
import io.queenkv.bench.driver.EtcdDriver;
import io.queenkv.bench.driver.QueenKvDriver;
import io.queenkv.bench.driver.SystemDriver;
import io.queenkv.bench.load.LoadGenerator;
import io.queenkv.bench.load.Measurement;
import io.queenkv.bench.load.Workload;
import io.queenkv.bench.load.WorkloadSpec;
import io.queenkv.bench.report.ReportFiles;
import io.queenkv.bench.report.Results.BenchReport;
import io.queenkv.bench.report.Results.CpuPerOp;
import io.queenkv.bench.report.Results.LoadedClusterResult;
import io.queenkv.bench.report.Results.Machine;
import io.queenkv.bench.report.Results.Settings;
import io.queenkv.bench.report.Results.SnapshotWindow;
import io.queenkv.bench.report.Results.SystemResult;
import io.queenkv.bench.report.Results.WorkloadResult;
import io.queenkv.bench.report.ResultsTables;
import io.queenkv.bench.report.Table;

/**
 * The benchmark: for each system in turn, on loopback,
 * <ol>
 *   <li>a fresh 3-member cluster: puts (256 B, 64 in flight) in 5 s windows from the moment it is ready
 *       (throughput right after a cold start), then the warm-up, then every workload (ramp, then the
 *       measured window); the cluster is then removed;</li>
 *   <li>a second fresh cluster: N keys of 256 B loaded, the RSS of its three processes, put latency
 *       before and while the leader takes a snapshot, and the time a restarted follower takes to be
 *       ready again.</li>
 * </ol>
 * Then it prints the tables and writes JSON, Markdown and an SVG chart. See README "Benchmarks".
 */
public final class BenchMain {
    private static final Duration COLD_START_BUCKET = Duration.ofSeconds(5);
    /** As long as the node image's training run (docker/node.Dockerfile). */
    private static final Duration AOT_TRAINING = Duration.ofSeconds(30);
    private static final Duration SETTLE = Duration.ofSeconds(5);
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private final BenchOptions options;
    private final String stamp;

    private BenchMain(BenchOptions options, Instant started) {
        this.options = options;
        this.stamp = STAMP.format(started);
    }

    public static void main(String[] args) {
        try {
            run();
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1); // runs the shutdown hook that kills every member still alive
        }
        System.exit(0); // client libraries leave non-daemon threads behind
    }

    private static void run() throws IOException {
        BenchOptions options = BenchOptions.fromSystemProperties();
        Instant started = Instant.now();
        startWatchdog(options.maxRun());
        System.out.println("bench: " + options);
        BenchMain bench = new BenchMain(options, started);

        List<SystemResult> systems = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (SystemKind kind : options.systems()) {
            if (kind == SystemKind.ETCD_36 && !Files.isExecutable(options.etcd36())) {
                String note = "etcd 3.6 skipped: no binary at " + options.etcd36() + " (bench/run builds it when Go is installed)";
                System.out.println(note);
                notes.add(note);
                continue;
            }
            try {
                systems.add(bench.runSystem(kind));
            } catch (RuntimeException e) {
                // One system failing (a member that will not start, say) still leaves the others' figures.
                e.printStackTrace();
                notes.add(kind.id() + " failed: " + e.getMessage());
            }
        }

        BenchReport report = new BenchReport(started.toString(), Instant.now().toString(), machine(), bench.settings(),
                systems, notes);
        bench.write(report);
    }

    private SystemResult runSystem(SystemKind kind) {
        System.out.println("\n== " + kind.label());
        double loadBefore = loadAverage();
        Path dir = options.workDir().resolve(stamp).resolve(kind.id());
        List<WorkloadResult> workloads = new ArrayList<>();
        List<Measurement> coldStart;
        String version;
        double startSeconds;
        try (LocalCluster cluster = newCluster(kind, dir.resolve("workloads"))) {
            startSeconds = start(cluster);
            try (SystemDriver driver = connect(kind, cluster, dir)) {
                coldStart = coldStart(driver);
                version = driver.serverVersion();
                System.out.println("  server version " + version);
                driver.preload();
                warmUp(driver);
                for (WorkloadSpec spec : WorkloadSpec.values())
                    if (options.workloads().contains(spec)) workloads.add(runWorkload(cluster, driver, spec));
            }
        }
        LoadedClusterResult loaded = null;
        if (options.keys() > 0) {
            try (LocalCluster cluster = newCluster(kind, dir.resolve("loaded"))) {
                start(cluster);
                try (SystemDriver driver = connect(kind, cluster, dir)) {
                    loaded = measureLoaded(cluster, driver);
                }
            }
        }
        return new SystemResult(kind.id(), kind.label(), version, startSeconds, coldStart, workloads, loaded,
                loadBefore, loadAverage());
    }

    /** The machine's 1-minute load average (the benchmark shares its cores with whatever else runs). */
    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private LocalCluster newCluster(SystemKind kind, Path dir) {
        return switch (kind) {
            case ETCD_34 -> Clusters.etcd(options.etcd34(), dir);
            case ETCD_36 -> Clusters.etcd(options.etcd36(), dir);
            case QUEEN_KV -> Clusters.queenKv(nodeJarCopy(), options.nodeJava(), options.nodeHeap(), nodeJvmOptions(), dir);
        };
    }

    private Path nodeJarCopy;
    private List<String> nodeJvmOptions;
    private String nodeJavaVersion;

    /**
     * The nodes' JVM options: the AOT cache the node image ships, trained here from this run's jar
     * (when {@code bench.nodeAot} and the nodes' JDK has it), then {@code bench.nodeJvmOptions}.
     */
    private List<String> nodeJvmOptions() {
        if (nodeJvmOptions == null) {
            List<String> all = new ArrayList<>();
            if (options.nodeAot() && AotCache.featureRelease(nodeJavaVersion()) >= AotCache.FIRST_JDK) {
                System.out.println("  training the nodes' AOT cache (" + AOT_TRAINING.toSeconds() + " s, as the node image does)");
                all.add("-XX:AOTCache=" + AotCache.train(options.nodeJava(), nodeJarCopy(), AOT_TRAINING));
            }
            all.addAll(options.nodeJvmOptions());
            nodeJvmOptions = List.copyOf(all);
        }
        return nodeJvmOptions;
    }

    /**
     * A private copy of the node jar for this run, so a rebuild of node/ while the run goes on cannot
     * change the nodes under it, and every (re)start runs the same build.
     */
    private Path nodeJarCopy() {
        if (nodeJarCopy == null) {
            try {
                Path dir = Files.createDirectories(options.workDir().resolve(stamp));
                nodeJarCopy = Files.copy(options.nodeJar(), dir.resolve("queen-kv-node.jar"));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot copy the node jar " + options.nodeJar(), e);
            }
        }
        return nodeJarCopy;
    }

    /** Starts the members; the seconds until all three were ready. */
    private static double start(LocalCluster cluster) {
        double seconds = cluster.start().toNanos() / 1e9;
        System.out.printf(Locale.ROOT, "  3 members ready in %.1f s (%s)%n", seconds, cluster.baseDir());
        return seconds;
    }

    private SystemDriver connect(SystemKind kind, LocalCluster cluster, Path dir) {
        return kind.isEtcd() ? new EtcdDriver(cluster.clientUrls(), dir) : new QueenKvDriver(cluster.clientUrls(), nodeVersion());
    }

    /** The node jar's Implementation-Version, and the commit it was built from when bench/run passes it. */
    private String nodeVersion() {
        String version = "unknown";
        try (JarFile jar = new JarFile(options.nodeJar().toFile())) {
            String v = jar.getManifest().getMainAttributes().getValue("Implementation-Version");
            if (v != null) version = v;
        } catch (IOException e) {
            // the version is a label in the report
        }
        String commit = System.getProperty("bench.commit", "");
        return commit.isBlank() ? version : version + " (" + commit + ")";
    }

    /** Puts in 5 s windows from the moment a fresh cluster is ready: how fast it is before it is warm. */
    private List<Measurement> coldStart(SystemDriver driver) {
        List<Measurement> buckets = new ArrayList<>();
        long windows = options.coldStart().toNanos() / COLD_START_BUCKET.toNanos();
        if (windows == 0) return buckets;
        Workload puts = driver.workload(WorkloadSpec.PUT_64, WorkloadSpec.PUT_64.inFlight()).orElseThrow();
        try (LoadGenerator load = LoadGenerator.start(puts, WorkloadSpec.PUT_64.inFlight())) {
            for (long i = 0; i < windows; i++) {
                LoadGenerator.sleep(COLD_START_BUCKET);
                buckets.add(load.takeWindow());
            }
        }
        System.out.println("  cold start, put ops/s per 5 s: "
                + String.join(" ", buckets.stream().map(m -> String.format(Locale.ROOT, "%.0f", m.opsPerSecond())).toList()));
        return buckets;
    }

    /**
     * The same warm-up on every system, 64 in flight: a third puts to the leader, a third puts through
     * every member, a third linearizable gets through every member. Every member serves calls during it,
     * so no member meets its first calls in a measured window.
     */
    private void warmUp(SystemDriver driver) {
        if (options.warmup().isZero()) return;
        List<WorkloadSpec> parts = List.of(WorkloadSpec.PUT_64, WorkloadSpec.PUT_ALL_NODES_64, WorkloadSpec.GET_LINEARIZABLE_64);
        Duration part = options.warmup().dividedBy(parts.size());
        System.out.println("  warm-up " + options.warmup().toSeconds() + " s");
        for (WorkloadSpec spec : parts)
            LoadGenerator.run(driver.workload(spec, spec.inFlight()).orElseThrow(), spec.inFlight(), Duration.ZERO, part);
    }

    private WorkloadResult runWorkload(LocalCluster cluster, SystemDriver driver, WorkloadSpec spec) {
        int inFlight = options.inFlightOverride().orElse(spec.inFlight());
        Optional<Workload> workload = driver.workload(spec, inFlight);
        if (workload.isEmpty()) {
            System.out.printf(Locale.ROOT, "  %-22s not offered%n", spec.id());
            return new WorkloadResult(spec.id(), inFlight, spec.description(), spec.etcdEquivalent(), null, null);
        }
        AtomicReference<CpuReading> atStart = new AtomicReference<>(), atEnd = new AtomicReference<>();
        Measurement m = LoadGenerator.run(workload.get(), inFlight, options.ramp(), options.duration(),
                () -> atStart.set(CpuReading.of(cluster)), () -> atEnd.set(CpuReading.of(cluster)));
        CpuPerOp cpu = CpuPerOp.of(atEnd.get().members().minus(atStart.get().members()),
                atEnd.get().loadGenerator().minus(atStart.get().loadGenerator()), m.ops());
        System.out.printf(Locale.ROOT, "  %-22s %9.0f ops/s  p50 %7.2f  p99 %7.2f  p99.9 %7.2f ms  CPU/op %5.0f µs members, %4.0f µs load generator%s%n",
                spec.id(), m.opsPerSecond(), m.p50Millis(), m.p99Millis(), m.p999Millis(),
                cpu == null ? 0 : cpu.membersMicros(), cpu == null ? 0 : cpu.loadGeneratorMicros(),
                m.errors() > 0 ? "  errors " + m.errors() : "");
        return new WorkloadResult(spec.id(), inFlight, spec.description(), spec.etcdEquivalent(), m, cpu);
    }

    /** CPU used so far by the members together and by this JVM, the load generator. */
    private record CpuReading(Duration members, Duration loadGenerator) {
        static CpuReading of(LocalCluster cluster) {
            return new CpuReading(cluster.cpuUsed(), ProcessCpu.usedByThisProcess());
        }
    }

    private LoadedClusterResult measureLoaded(LocalCluster cluster, SystemDriver driver) {
        System.out.printf(Locale.ROOT, "  loading %,d keys of 256 B%n", options.keys());
        Duration load = driver.loadBulk(options.keys());
        System.out.printf(Locale.ROOT, "  loaded in %.1f s%n", load.toNanos() / 1e9);
        LoadGenerator.sleep(SETTLE);
        long rss = cluster.rssBytes();
        System.out.printf(Locale.ROOT, "  RSS of the 3 members %.0f MiB%n", rss / (1024.0 * 1024.0));

        SnapshotWindow snapshot;
        Measurement held;
        Workload puts = driver.workload(WorkloadSpec.PUT_64, WorkloadSpec.PUT_64.inFlight()).orElseThrow();
        try (LoadGenerator generator = LoadGenerator.start(puts, WorkloadSpec.PUT_64.inFlight())) {
            LoadGenerator.sleep(options.ramp());
            generator.takeWindow();
            // Long enough for the snapshots a node takes on its own under writes to come due.
            LoadGenerator.sleep(options.loadedPuts());
            held = generator.takeWindow();
            System.out.printf(Locale.ROOT, "  puts held %d s: %.0f ops/s, p99 %.2f ms%n", options.loadedPuts().toSeconds(),
                    held.opsPerSecond(), held.p99Millis());
            LoadGenerator.sleep(SETTLE);
            Measurement before = generator.takeWindow();
            Duration took = driver.snapshotOnLeader();
            Measurement during = generator.takeWindow();
            snapshot = new SnapshotWindow(took.toNanos() / 1e9, before, during);
        }
        System.out.printf(Locale.ROOT, "  snapshot on the leader %.2f s; put p99 %.2f ms before, %.2f ms during%n",
                snapshot.snapshotSeconds(), snapshot.before().p99Millis(), snapshot.during().p99Millis());

        int follower = (driver.leaderIndex() + 1) % cluster.members().size();
        Duration restart = cluster.restart(follower);
        System.out.printf(Locale.ROOT, "  %s restarted, ready after %.1f s%n", cluster.members().get(follower).name(), restart.toNanos() / 1e9);
        return new LoadedClusterResult(options.keys(), load.toNanos() / 1e9, rss, restart.toNanos() / 1e9, snapshot, held);
    }

    private void write(BenchReport report) throws IOException {
        Path runResults = options.workDir().getParent().resolve("results");
        Path runJson = ReportFiles.write(report, runResults, stamp);

        System.out.println("\n" + ResultsTables.throughput(report).plain());
        Table cpu = ResultsTables.cpuPerOp(report);
        if (cpu != null) System.out.println(cpu.plain());
        System.out.println(ResultsTables.loadedCluster(report).plain());
        System.out.println(ResultsTables.workloadNotes(report).plain());
        report.notes().forEach(System.out::println);
        System.out.println("results: " + runJson + " (and .md, .svg)");
        if (options.record()) {
            ReportFiles.write(report, options.resultsDir(), "latest");
            System.out.println("recorded as " + options.resultsDir().resolve("latest.{json,md,svg}"));
        }
    }

    private static Machine machine() {
        long memory = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getTotalMemorySize() : -1;
        return new Machine(Runtime.getRuntime().availableProcessors(), memory, System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    }

    /** The run's settings; the nodes' JVM options as they were started (with the AOT cache when one was trained). */
    private Settings settings() {
        BenchOptions o = options;
        return new Settings(o.duration().toMillis() / 1000.0, o.ramp().toMillis() / 1000.0, o.warmup().toMillis() / 1000.0,
                o.coldStart().toMillis() / 1000.0, o.inFlightOverride().orElse(null), o.keys(), o.nodeHeap(),
                String.join(" ", nodeJvmOptions != null ? nodeJvmOptions : o.nodeJvmOptions()), nodeJavaVersion());
    }

    /** The first line of {@code java -version} of the nodes' JVM, e.g. {@code openjdk version "25.0.3" 2026-04-21 LTS}; asked once. */
    private String nodeJavaVersion() {
        if (nodeJavaVersion == null) nodeJavaVersion = javaVersion(options.nodeJava());
        return nodeJavaVersion;
    }

    private static String javaVersion(Path javaBinary) {
        try {
            Process p = new ProcessBuilder(javaBinary.toString(), "-version").redirectErrorStream(true).start();
            String first = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.startsWith("Picked up")).findFirst().orElse("");
            p.waitFor();
            return first.trim();
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** Ends a run that overruns {@code limit}; the shutdown hook of LocalCluster then kills every member. */
    private static void startWatchdog(Duration limit) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(limit.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("bench: stopped after " + limit.toMinutes() + " min (-Dbench.maxRun)");
            System.exit(2);
        }, "bench-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }
}
