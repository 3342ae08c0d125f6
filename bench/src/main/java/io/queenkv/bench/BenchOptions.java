package io.queenkv.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.queenkv.bench.load.WorkloadSpec;

/**
 * The knobs of a benchmark run, read from system properties ({@code -Dbench.…}); bench/run passes
 * its flags through as such. Defaults are those of the recorded full run (README "Benchmarks").
 *
 * @param systems        which systems to run, in this order
 * @param workloads      which workloads to run (default all)
 * @param duration       measured window of each workload
 * @param ramp           unmeasured start of each workload (connections open, queues fill)
 * @param warmup         load before the first workload, after the cold-start window; the same for every system
 * @param coldStart      window measured in 5 s buckets right after a fresh cluster is ready
 * @param inFlightOverride when present, every workload runs with this many in flight instead of its own
 * @param keys           keys of 256 B loaded for the RSS, restart and snapshot measurements (0 skips them)
 * @param loadedPuts     puts at 64 in flight held this long on the cluster holding the keys (snapshots come due meanwhile)
 * @param nodeHeap       -Xmx of each Queen KV node
 * @param nodeJvmOptions extra JVM options of each Queen KV node, after {@code -Xmx} (a later flag wins)
 * @param nodeJava       the java binary that runs the Queen KV nodes (bench/run picks the newest JDK 21+ it finds)
 * @param nodeAot        whether the nodes start with an AOT cache trained from the run's jar, as the node image's do (JDK 25+)
 * @param maxRun         the whole run is stopped (processes killed) after this long
 * @param etcd34         Debian's etcd binary
 * @param etcd36         the etcd built from the Go module proxy (absent file: that system is skipped)
 * @param nodeJar        the Queen KV node jar
 * @param workDir        data dirs and logs of the clusters
 * @param resultsDir     committed results (latest.json, latest.md, latest.svg)
 * @param record         whether this run replaces the committed results (quick runs pass false)
 */
public record BenchOptions(
        List<SystemKind> systems,
        Set<WorkloadSpec> workloads,
        Duration duration,
        Duration ramp,
        Duration warmup,
        Duration coldStart,
        Optional<Integer> inFlightOverride,
        int keys,
        Duration loadedPuts,
        String nodeHeap,
        List<String> nodeJvmOptions,
        Path nodeJava,
        boolean nodeAot,
        Duration maxRun,
        Path etcd34,
        Path etcd36,
        Path nodeJar,
        Path workDir,
        Path resultsDir,
        boolean record) {

    public static BenchOptions fromSystemProperties() {
        Path benchDir = Path.of(prop("bench.dir", "bench")).toAbsolutePath().normalize();
        return new BenchOptions(
                parseList(prop("bench.systems", "etcd-3.4,etcd-3.6,queen-kv")).stream().map(SystemKind::byId).toList(),
                parseWorkloads(prop("bench.workloads", "all")),
                parseDuration(prop("bench.duration", "10s")),
                parseDuration(prop("bench.ramp", "2s")),
                parseDuration(prop("bench.warmup", "180s")),
                parseDuration(prop("bench.coldStart", "60s")),
                Optional.ofNullable(System.getProperty("bench.inflight")).map(Integer::parseInt),
                Integer.parseInt(prop("bench.keys", "1000000").replace("_", "")),
                parseDuration(prop("bench.loadedPuts", "60s")),
                prop("bench.nodeHeap", "2g"),
                Arrays.stream(prop("bench.nodeJvmOptions", "").split("\\s+")).filter(o -> !o.isEmpty()).toList(),
                Path.of(prop("bench.nodeJava", Path.of(System.getProperty("java.home"), "bin", "java").toString())),
                Boolean.parseBoolean(prop("bench.nodeAot", "true")),
                parseDuration(prop("bench.maxRun", "60m")),
                Path.of(prop("bench.etcd34", "/usr/bin/etcd")),
                Path.of(prop("bench.etcd36", benchDir.resolve("target/etcd-3.6").toString())),
                Path.of(prop("bench.nodeJar", benchDir.resolve("../node/target/queen-kv-node.jar").toString())).normalize(),
                benchDir.resolve("target/clusters"),
                benchDir.resolve("results"),
                Boolean.parseBoolean(prop("bench.record", "true")));
    }

    /** "10s", "2m", "500ms" or a plain number of seconds. */
    static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("ms")) return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        if (t.endsWith("s")) return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
        if (t.endsWith("m")) return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)) * 60);
        return Duration.ofMillis(Math.round(Double.parseDouble(t) * 1000));
    }

    /** "all", or workload ids separated by commas; an id ending in '*' selects every workload it starts. */
    static Set<WorkloadSpec> parseWorkloads(String text) {
        if (text.isBlank() || text.trim().equals("all")) return EnumSet.allOf(WorkloadSpec.class);
        Set<WorkloadSpec> chosen = EnumSet.noneOf(WorkloadSpec.class);
        for (String id : parseList(text)) {
            List<WorkloadSpec> matching = Arrays.stream(WorkloadSpec.values())
                    .filter(w -> id.endsWith("*") ? w.id().startsWith(id.substring(0, id.length() - 1)) : w.id().equals(id))
                    .toList();
            if (matching.isEmpty())
                throw new IllegalArgumentException("no workload " + id + "; known: " + Arrays.stream(WorkloadSpec.values())
                        .map(WorkloadSpec::id).collect(Collectors.joining(", ")));
            chosen.addAll(matching);
        }
        return chosen;
    }

    private static List<String> parseList(String text) {
        return Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static String prop(String name, String fallback) {
        String v = System.getProperty(name);
        return v == null || v.isBlank() ? fallback : v.trim();
    }
}
