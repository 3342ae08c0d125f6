package io.queenkv.e2e.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Cuts one node's Raft traffic off from the others with iptables rules, where the machine allows it
 * (root, a working {@code iptables -L}). Every node listens on 127.0.0.1 in one network namespace,
 * so the rules work on ports:
 * <ul>
 *   <li>{@code INPUT --dport R -j DROP} and {@code OUTPUT --sport R -j DROP} for the node's Raft
 *       port R: nobody reaches the node's Raft server, and it answers nobody;</li>
 *   <li>the node's own outgoing connections (to the other nodes' Raft ports, from ephemeral ports)
 *       are found through {@code /proc/<pid>/fd} and {@code /proc/net/tcp}, and their local ports
 *       dropped the same way; {@link #refresh} repeats that for connections opened since, so a
 *       reconnect may slip a few packets through before it is caught (a leaky partition — any
 *       network behaviour must keep the store linearizable).</li>
 * </ul>
 * HTTP ports stay open: clients still reach the isolated node, which must then refuse or time out.
 * Every rule added is remembered and removed by {@link #healAll} (call it in {@code finally}).
 */
final class LoopbackPartitioner {
    private final List<List<String>> rules = new ArrayList<>();
    private final Set<Integer> droppedPorts = new HashSet<>();
    private final String unavailableReason;

    LoopbackPartitioner() {
        this.unavailableReason = probe();
        if (unavailableReason != null)
            ClusterChecks.say("partition nemesis unavailable: %s — partitions are skipped", unavailableReason);
    }

    /** Null when iptables works here, else why not. */
    String unavailableReason() {
        return unavailableReason;
    }

    boolean available() {
        return unavailableReason == null;
    }

    private static String probe() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) return "not Linux";
        if (!"root".equals(System.getProperty("user.name"))) return "not running as root (user " + System.getProperty("user.name") + ")";
        Result r = run(List.of("iptables", "-w", "5", "-L", "-n"));
        if (r.code != 0) return "`iptables -L -n` does not work: " + r.output.strip();
        return null;
    }

    /** Isolates the node with Raft port {@code raftPort} and process {@code pid}; its HTTP port stays open. */
    synchronized void isolate(int raftPort, int httpPort, long pid) {
        dropPort(raftPort);
        refresh(httpPort, pid);
    }

    /** Drops the local ports of the node's current TCP connections (except its HTTP port) not dropped yet. */
    synchronized void refresh(int httpPort, long pid) {
        for (int port : localPortsOf(pid)) if (port != httpPort) dropPort(port);
    }

    private void dropPort(int port) {
        if (!droppedPorts.add(port)) return;
        add(List.of("INPUT", "-i", "lo", "-p", "tcp", "--dport", Integer.toString(port), "-j", "DROP"));
        add(List.of("OUTPUT", "-o", "lo", "-p", "tcp", "--sport", Integer.toString(port), "-j", "DROP"));
    }

    private void add(List<String> rule) {
        List<String> cmd = new ArrayList<>(List.of("iptables", "-w", "5", "-A"));
        cmd.addAll(rule);
        Result r = run(cmd);
        if (r.code != 0) throw new IllegalStateException(String.join(" ", cmd) + " failed: " + r.output);
        rules.add(rule);
    }

    /** Removes every rule this partitioner added. */
    synchronized void healAll() {
        for (List<String> rule : rules) {
            List<String> cmd = new ArrayList<>(List.of("iptables", "-w", "5", "-D"));
            cmd.addAll(rule);
            Result r = run(cmd);
            if (r.code != 0) System.err.println("[e2e] could not remove iptables rule " + rule + ": " + r.output);
        }
        rules.clear();
        droppedPorts.clear();
    }

    /** Local ports of the TCP sockets the process holds (from /proc/<pid>/fd and /proc/<pid>/net/tcp). */
    static Set<Integer> localPortsOf(long pid) {
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) inodes.add(target.substring(8, target.length() - 1));
                } catch (IOException ignored) {
                    // the fd closed meanwhile
                }
            }
        } catch (IOException e) {
            return Set.of();
        }
        Set<Integer> ports = new LinkedHashSet<>();
        for (String table : List.of("tcp", "tcp6")) {
            try {
                List<String> lines = Files.readAllLines(Path.of("/proc", Long.toString(pid), "net", table), StandardCharsets.US_ASCII);
                for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                    if (f.length > 9 && inodes.contains(f[9]) && !"0A".equals(f[3])) // not LISTEN sockets
                        ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                }
            } catch (IOException | RuntimeException ignored) {
                // no such table
            }
        }
        return ports;
    }

    private record Result(int code, String output) {}

    private static Result run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "timed out");
            }
            return new Result(p.exitValue(), out);
        } catch (IOException e) {
            return new Result(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }
}
