package io.queenkv.bench.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Three (or any number of) member processes on loopback, started from {@link MemberSpec}s. Every
 * process the benchmark starts is registered with one JVM shutdown hook that kills it, so a failed or
 * interrupted run leaves nothing behind; {@link #close} kills the members and deletes their data dirs
 * (logs stay next to them under bench/target/clusters/).
 */
public final class LocalCluster implements AutoCloseable {
    public static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "bench-cleanup"));
    }

    private final List<MemberSpec> members;
    private final Path baseDir;
    private final Process[] processes;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    public LocalCluster(Path baseDir, List<MemberSpec> members) {
        this.baseDir = baseDir;
        this.members = List.copyOf(members);
        this.processes = new Process[members.size()];
    }

    public List<MemberSpec> members() {
        return members;
    }

    public List<String> clientUrls() {
        return members.stream().map(MemberSpec::clientUrl).toList();
    }

    /** Starts every member and waits until each is ready; the time from the first launch to the last ready. */
    public Duration start() {
        Instant began = Instant.now();
        for (int i = 0; i < members.size(); i++) launch(i);
        for (int i = 0; i < members.size(); i++) awaitReady(i, READY_TIMEOUT);
        return Duration.between(began, Instant.now());
    }

    /**
     * Stops member {@code index} with SIGTERM, starts it again on the same data dir and answers the
     * time from its start to its first ready answer.
     */
    public Duration restart(int index) {
        stop(index);
        Instant began = Instant.now();
        launch(index);
        awaitReady(index, READY_TIMEOUT);
        return Duration.between(began, Instant.now());
    }

    /** CPU time used so far by the members' processes together. */
    public Duration cpuUsed() {
        Duration sum = Duration.ZERO;
        for (Process p : processes) sum = sum.plus(ProcessCpu.used(p.pid()));
        return sum;
    }

    /** Resident memory of all member processes (VmRSS from /proc), in bytes. */
    public long rssBytes() {
        long sum = 0;
        for (Process p : processes) sum += ProcessMemory.rssBytes(p.pid());
        return sum;
    }

    private void launch(int index) {
        MemberSpec m = members.get(index);
        try {
            Files.createDirectories(m.dataDir());
            Files.writeString(m.logFile(), "\n===== " + Instant.now() + " starting " + m.name() + ": "
                            + String.join(" ", m.command()) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            ProcessBuilder pb = new ProcessBuilder(m.command()).directory(m.dataDir().getParent().toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("QUEEN_KV_") || k.startsWith("ETCD_"));
            pb.environment().putAll(m.env());
            pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(m.logFile().toFile()));
            Process p = pb.start();
            LIVE.add(p);
            processes[index] = p;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + m.name(), e);
        }
    }

    private void awaitReady(int index, Duration timeout) {
        MemberSpec m = members.get(index);
        HttpRequest probe = HttpRequest.newBuilder(URI.create(m.clientUrl() + m.readyPath()))
                .timeout(Duration.ofSeconds(2)).GET().build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!processes[index].isAlive())
                throw new IllegalStateException(m.name() + " exited with code " + processes[index].exitValue()
                        + " before it was ready; see " + m.logFile());
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) return;
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            sleepMillis(20);
        }
        throw new IllegalStateException(m.name() + " was not ready within " + timeout.toSeconds() + " s; see " + m.logFile());
    }

    private void stop(int index) {
        Process p = processes[index];
        p.destroy();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LIVE.remove(p);
    }

    @Override
    public void close() {
        for (Process p : processes) if (p != null) p.destroyForcibly();
        for (Process p : processes) {
            if (p == null) continue;
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            LIVE.remove(p);
        }
        for (MemberSpec m : members) deleteTree(m.dataDir());
    }

    public Path baseDir() {
        return baseDir;
    }

    /** Free loopback TCP ports, distinct from each other. */
    public static List<Integer> freePorts(int count) {
        List<Integer> ports = new ArrayList<>();
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                ports.add(s.getLocalPort());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // the port is free again either way
                }
            }
        }
        return ports;
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) return;
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort: data of a benchmark run
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
