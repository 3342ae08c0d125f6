package io.queenkv.e2e.harness;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.awaitility.core.ConditionTimeoutException;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A cluster of real Queen KV node processes on loopback, each started from the shaded node jar
 * with {@code java -Xmx256m -jar queen-kv-node.jar} and configured only through {@code QUEEN_KV_*}
 * environment variables (README "Configuration").
 *
 * <ul>
 *   <li>nodes are {@code n1..nN}; each has a free loopback HTTP and Raft port, its own data dir and a
 *       log file (stdout + stderr, appended across restarts) under one directory per cluster —
 *       {@code e2e/target/e2e-clusters/…} when run by Maven, else the system temp dir;</li>
 *   <li>every original node gets the same {@code QUEEN_KV_PEERS=n1=127.0.0.1:raft:http,…};</li>
 *   <li>{@link #addNode} starts a process that is <em>not</em> in that peer list: it waits with an
 *       empty group to be added through the admin API (the caller does that);</li>
 *   <li>faults: {@link #kill9} (SIGKILL), {@link #stop} (SIGTERM), {@link #pause}/{@link #resume}
 *       (SIGSTOP/SIGCONT), {@link #restart} (same env and data dir);</li>
 *   <li>TLS (a constructor flag, or {@code -Dqueenkv.e2e.tls=true} for every cluster): each node gets a
 *       certificate of {@link TestCertificates#CLUSTER_CA} for 127.0.0.1 in {@code <node>/tls/}
 *       ({@link #writeTlsFiles} replaces it), and {@link NodeHandle#url} is https; {@link KvHttp}
 *       trusts the harness CAs.</li>
 * </ul>
 *
 * The jar is {@code -Dqueenkv.nodeJar=…} if set (the e2e pom sets it), else
 * {@code ../node/target/queen-kv-node.jar} relative to the e2e module. Failures raised by the
 * harness name the log files and include their last lines; {@link #describe()} gives the same
 * overview for a test's own failure messages (see {@link ClusterLogsOnFailure}).
 */
public final class NodeProcessCluster implements AutoCloseable {
    public static final Duration READY_TIMEOUT = Duration.ofSeconds(45);
    public static final Duration LEADER_TIMEOUT = Duration.ofSeconds(20);
    private static final String HOST = "127.0.0.1";
    private static final int LOG_TAIL_LINES = 40;

    /** One node process slot: fixed identity, ports and dirs; the process changes across restarts. */
    public static final class NodeHandle {
        final String id;
        final int httpPort;
        final int raftPort;
        final Path dataDir;
        final Path logFile;
        final Map<String, String> env;
        final boolean original;
        final boolean tls;
        Process process;
        boolean paused;

        NodeHandle(String id, int httpPort, int raftPort, Path dataDir, Path logFile, Map<String, String> env, boolean original, boolean tls) {
            this.tls = tls;
            this.id = id;
            this.httpPort = httpPort;
            this.raftPort = raftPort;
            this.dataDir = dataDir;
            this.logFile = logFile;
            this.env = env;
            this.original = original;
        }

        public String id() { return id; }
        public int httpPort() { return httpPort; }
        public int raftPort() { return raftPort; }
        public Path dataDir() { return dataDir; }
        public Path logFile() { return logFile; }
        public String url() { return (tls ? "https://" : "http://") + HOST + ":" + httpPort; }
        public String raftAddress() { return HOST + ":" + raftPort; }
        public String httpAddress() { return HOST + ":" + httpPort; }
        public boolean running() { return process != null && process.isAlive(); }
        public boolean paused() { return paused; }
        public long pid() {
            if (process == null) throw new IllegalStateException(id + " has never been started");
            return process.toHandle().pid();
        }
    }

    private final Path nodeJar;
    /** Nodes that run another jar than this build's ({@link #runJar}): a rolling upgrade. */
    private final Map<String, Path> otherJars = new java.util.concurrent.ConcurrentHashMap<>();
    private final Path baseDir;
    private final Map<String, String> extraEnv;
    private final boolean tls;
    private final List<String> jvmArgs;
    private final String peers;
    /** {@code QUEEN_KV_CLUSTER_ID} of every node: a fresh id per harness, as an operator gives each resource its UID. */
    private final String clusterId = java.util.UUID.randomUUID().toString();
    private final Map<String, NodeHandle> nodes = new LinkedHashMap<>();
    private final Set<Integer> usedPorts = new HashSet<>();
    private final KvHttp http = new KvHttp(Duration.ofSeconds(2));

    /** A cluster of {@code size} nodes {@code n1..n<size>} (not started yet: call {@link #start()}). */
    public NodeProcessCluster(int size) {
        this(size, Map.of());
    }

    /**
     * As {@link #NodeProcessCluster(int)}, with extra {@code QUEEN_KV_*} variables for every node; TLS
     * when {@code -Dqueenkv.e2e.tls=true}.
     */
    public NodeProcessCluster(int size, Map<String, String> extraEnv) {
        this(size, extraEnv, Boolean.getBoolean("queenkv.e2e.tls"));
    }

    /** As {@link #NodeProcessCluster(int, Map)}; {@code tls} gives every node the three TLS files. */
    public NodeProcessCluster(int size, Map<String, String> extraEnv, boolean tls) {
        if (size < 1) throw new IllegalArgumentException("size must be >= 1");
        Path builtJar = locateNodeJar();
        this.extraEnv = Map.copyOf(extraEnv);
        this.tls = tls;
        String extraJvm = System.getProperty("queenkv.nodeJvmArgs", "").trim();
        this.jvmArgs = extraJvm.isEmpty() ? List.of() : List.of(extraJvm.split("\\s+"));
        try {
            this.baseDir = createBaseDir();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // A private copy: a rebuild of node/ during the test cannot change the nodes under our feet,
        // and every (re)start of this cluster runs the same build.
        try {
            this.nodeJar = Files.copy(builtJar, baseDir.resolve("queen-kv-node.jar"));
        } catch (IOException e) {
            throw new UncheckedIOException("could not copy " + builtJar, e);
        }
        List<String> peerSpecs = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            String id = "n" + i;
            NodeHandle h = newHandle(id, true);
            nodes.put(id, h);
            peerSpecs.add(id + "=" + HOST + ":" + h.raftPort + ":" + h.httpPort);
        }
        this.peers = String.join(",", peerSpecs);
        for (NodeHandle h : nodes.values()) h.env.put("QUEEN_KV_PEERS", peers);
        System.out.println("[e2e] " + (tls ? "TLS " : "") + "cluster of " + size + " in " + baseDir + " (node jar " + builtJar + ")");
    }

    // ---- locating the jar -----------------------------------------------------------------------

    static Path locateNodeJar() {
        String prop = System.getProperty("queenkv.nodeJar");
        Path jar;
        if (prop != null && !prop.isBlank()) {
            jar = Path.of(prop);
        } else {
            jar = e2eModuleDir().resolve("../node/target/queen-kv-node.jar");
        }
        jar = jar.toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("The node jar " + jar + " does not exist. Build the node first: "
                    + "`mvn -q -o -DskipTests package -pl node` from the repository root (a reactor `mvn verify` "
                    + "does it before the e2e tests run), or point -Dqueenkv.nodeJar=… at a built jar.");
        }
        return jar;
    }

    /** The e2e module directory: {@code -Dqueenkv.e2eDir}, else the working directory or its {@code e2e/}. */
    static Path e2eModuleDir() {
        String prop = System.getProperty("queenkv.e2eDir");
        if (prop != null && !prop.isBlank()) return Path.of(prop);
        Path cwd = Path.of("").toAbsolutePath();
        if (Files.isDirectory(cwd.resolve("e2e")) && !cwd.endsWith("e2e")) return cwd.resolve("e2e");
        return cwd;
    }

    private static Path createBaseDir() throws IOException {
        Path target = e2eModuleDir().resolve("target");
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        if (Files.isDirectory(target)) {
            Path parent = Files.createDirectories(target.resolve("e2e-clusters"));
            return Files.createTempDirectory(parent, stamp + "-");
        }
        return Files.createTempDirectory("queenkv-e2e-" + stamp + "-");
    }

    private NodeHandle newHandle(String id, boolean original) {
        if (nodes.containsKey(id)) throw new IllegalArgumentException("node " + id + " already exists");
        int httpPort = freePort();
        int raftPort = freePort();
        Path dataDir = baseDir.resolve(id).resolve("data");
        Path logFile = baseDir.resolve(id + ".log");
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put("QUEEN_KV_CLUSTER_ID", clusterId);
        env.putAll(extraEnv);
        env.put("QUEEN_KV_NODE_ID", id);
        env.put("QUEEN_KV_HOST", HOST);
        env.put("QUEEN_KV_HTTP_PORT", Integer.toString(httpPort));
        env.put("QUEEN_KV_RAFT_PORT", Integer.toString(raftPort));
        env.put("QUEEN_KV_DATA_DIR", dataDir.toString());
        if (tls) {
            Path tlsDir = baseDir.resolve(id).resolve("tls");
            try {
                Files.createDirectories(tlsDir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            TestCertificates.Ca ca = TestCertificates.CLUSTER_CA;
            env.putAll(TestCertificates.writeNodeFiles(tlsDir, TestCertificates.issue(ca, id), ca.certificate()));
        }
        return new NodeHandle(id, httpPort, raftPort, dataDir, logFile, env, original, tls);
    }

    // ---- TLS --------------------------------------------------------------------------------------

    public boolean tls() {
        return tls;
    }

    /**
     * Replaces a running node's TLS files (each in one atomic move): its certificate and key with
     * {@code certificate}, its CA bundle with {@code caBundle}. The node picks them up by itself.
     */
    public void writeTlsFiles(String id, TestCertificates.Issued certificate, java.security.cert.X509Certificate... caBundle) {
        NodeHandle h = node(id);
        if (!h.tls) throw new IllegalStateException(id + " runs without TLS");
        TestCertificates.writeNodeFiles(Path.of(h.env.get("QUEEN_KV_TLS_CERT_FILE")).getParent(), certificate, caBundle);
        note(h, "TLS files replaced: certificate serial " + certificate.certificate().getSerialNumber().toString(16));
    }

    /** Replaces only a node's CA bundle. */
    public void writeTlsCaBundle(String id, java.security.cert.X509Certificate... caBundle) {
        NodeHandle h = node(id);
        if (!h.tls) throw new IllegalStateException(id + " runs without TLS");
        TestCertificates.writePem(Path.of(h.env.get("QUEEN_KV_TLS_CA_FILE")), (Object[]) caBundle);
        note(h, "TLS CA bundle replaced (" + caBundle.length + " certificates)");
    }

    private int freePort() {
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
                s.setReuseAddress(true);
                int port = s.getLocalPort();
                if (usedPorts.add(port)) return port;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no free loopback port");
    }

    // ---- lifecycle --------------------------------------------------------------------------------

    /** Starts every node and waits until each one's {@code GET /readyz} answers 200. */
    /**
     * From its next start on, node {@code id} runs {@code jar} (a private copy), or this build's jar
     * again when {@code jar} is null.
     */
    public void runJar(String id, Path jar) {
        node(id);
        if (jar == null) {
            otherJars.remove(id);
            return;
        }
        try {
            otherJars.put(id, Files.copy(jar, baseDir.resolve(id + "-" + jar.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING));
        } catch (IOException e) {
            throw new UncheckedIOException("could not copy " + jar, e);
        }
    }

    public NodeProcessCluster start() {
        for (NodeHandle h : nodes.values()) launch(h);
        for (NodeHandle h : nodes.values()) awaitReady(h.id, READY_TIMEOUT);
        return this;
    }

    private synchronized void launch(NodeHandle h) {
        if (h.running()) throw new IllegalStateException(h.id + " is already running (pid " + h.pid() + ")");
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBin);
        cmd.add("-Xmx256m");
        cmd.addAll(jvmArgs);
        cmd.add("-jar");
        cmd.add(otherJars.getOrDefault(h.id, nodeJar).toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(h.dataDir.getParent().toFile());
        // Only the harness decides the configuration: drop any QUEEN_KV_* inherited from the test JVM.
        pb.environment().keySet().removeIf(k -> k.startsWith("QUEEN_KV_"));
        pb.environment().putAll(h.env);
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(h.logFile.toFile()));
        try {
            Files.writeString(h.logFile, "\n===== [e2e] " + LocalDateTime.now() + " starting " + h.id + ": "
                    + String.join(" ", cmd) + "\n===== env " + h.env + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            h.process = pb.start();
            h.paused = false;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + h.id, e);
        }
    }

    /** Waits until {@code GET /readyz} on the node is 200; fails early (with its log) if the process dies. */
    public void awaitReady(String id, Duration timeout) {
        NodeHandle h = node(id);
        awaitOrFail("node " + id + " to be ready (GET /readyz = 200)", timeout, () -> {
            if (!h.running()) throw new IllegalStateException("node " + id + " exited with code "
                    + h.process.exitValue() + " before it was ready\n" + tail(h));
            return http.getJson(h.url(), "/readyz").status() == 200;
        });
    }

    /** Waits until {@code GET /healthz} on the node is 200 (the process is up, whatever its Raft state). */
    public void awaitHealthy(String id, Duration timeout) {
        NodeHandle h = node(id);
        awaitOrFail("node " + id + " to be healthy (GET /healthz = 200)", timeout, () -> {
            if (!h.running()) throw new IllegalStateException("node " + id + " exited with code "
                    + h.process.exitValue() + "\n" + tail(h));
            return http.getJson(h.url(), "/healthz").status() == 200;
        });
    }

    /** SIGKILL: {@code Process.destroyForcibly()}, then waits for the process to be gone. */
    public void kill9(String id) {
        NodeHandle h = node(id);
        if (!h.running()) throw new IllegalStateException(id + " is not running");
        h.process.destroyForcibly();
        waitForExit(h, Duration.ofSeconds(10));
        h.paused = false;
        note(h, "killed with SIGKILL");
    }

    /** SIGTERM, then waits (up to 30 s) for the node to exit; fails if it does not. */
    public void stop(String id) {
        NodeHandle h = node(id);
        if (!h.running()) throw new IllegalStateException(id + " is not running");
        if (h.paused) resume(id); // a stopped process would not handle SIGTERM
        h.process.destroy();
        if (!waitForExit(h, Duration.ofSeconds(30))) {
            h.process.destroyForcibly();
            waitForExit(h, Duration.ofSeconds(10));
            throw new IllegalStateException(id + " did not exit within 30 s of SIGTERM (killed it)\n" + tail(h));
        }
        note(h, "stopped with SIGTERM, exit code " + h.process.exitValue());
    }

    /**
     * Starts the node again with the same environment and data dir (SIGTERM first if it is still
     * running) and waits until it is ready.
     */
    public void restart(String id) {
        restartNoWait(id);
        awaitReady(id, READY_TIMEOUT);
    }

    /** As {@link #restart} without waiting for readiness. */
    public void restartNoWait(String id) {
        NodeHandle h = node(id);
        if (h.running()) stop(id);
        launch(h);
    }

    /**
     * Takes a stopped node's disk away, as a lost disk or a new volume would: its data dir is moved
     * aside (answered, for {@link #restoreDataDir}) and an empty one put in its place, so the next
     * {@link #restart} starts it on an empty dir with the same environment.
     */
    public Path wipe(String id) {
        NodeHandle h = node(id);
        if (h.running()) throw new IllegalStateException(id + " is running; stop or kill it before wiping its data dir");
        try {
            Path aside = h.dataDir.resolveSibling("data-lost-" + System.nanoTime());
            Files.move(h.dataDir, aside);
            Files.createDirectories(h.dataDir);
            note(h, "data dir wiped (old data moved to " + aside + ")");
            return aside;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Puts a data dir that {@link #wipe} moved aside back in place of a stopped node's current one. */
    public void restoreDataDir(String id, Path aside) {
        NodeHandle h = node(id);
        if (h.running()) throw new IllegalStateException(id + " is running; stop it before restoring its data dir");
        deleteTree(h.dataDir);
        try {
            Files.move(aside, h.dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        note(h, "data dir restored from " + aside);
    }

    /** Changes one variable of a node's environment for its next start (null removes it). */
    public void setEnv(String id, String name, String value) {
        NodeHandle h = node(id);
        if (value == null) h.env.remove(name);
        else h.env.put(name, value);
    }

    /** Starts a stopped node without waiting, and waits for its process to exit; answers the exit code. */
    public int runUntilExit(String id, Duration timeout) {
        NodeHandle h = node(id);
        launch(h);
        if (!waitForExit(h, timeout)) throw new IllegalStateException(id + " was expected to exit but still runs\n" + tail(h));
        note(h, "exited with code " + h.process.exitValue());
        return h.process.exitValue();
    }

    /** The cluster id every node of this harness is started with. */
    public String clusterId() {
        return clusterId;
    }

    /** SIGSTOP: the process freezes (no heartbeats, no answers) until {@link #resume}. */
    public void pause(String id) {
        NodeHandle h = node(id);
        if (!h.running()) throw new IllegalStateException(id + " is not running");
        signal(h, "STOP");
        h.paused = true;
        note(h, "paused with SIGSTOP");
    }

    /** SIGCONT. */
    public void resume(String id) {
        NodeHandle h = node(id);
        if (!h.running()) throw new IllegalStateException(id + " is not running");
        signal(h, "CONT");
        h.paused = false;
        note(h, "resumed with SIGCONT");
    }

    private static void signal(NodeHandle h, String sig) {
        try {
            Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(h.pid())).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0)
                throw new IllegalStateException("kill -" + sig + " " + h.pid() + " failed: " + out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static boolean waitForExit(NodeHandle h, Duration d) {
        try {
            return h.process.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void note(NodeHandle h, String what) {
        try {
            Files.writeString(h.logFile, "===== [e2e] " + LocalDateTime.now() + " " + h.id + " " + what + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // the note is a courtesy
        }
    }

    // ---- membership ------------------------------------------------------------------------------

    /**
     * Starts an extra node process whose {@code QUEEN_KV_PEERS} lists only the original members:
     * it is not in the list, so it starts with an empty group and waits to be added through the
     * admin API ({@link KvHttp#adminAddMember} with {@link #raftAddress}/{@link #httpAddress}) —
     * this method does not call the admin API. Waits until {@code /healthz} answers.
     */
    public NodeHandle addNode(String id) {
        NodeHandle h = newHandle(id, false);
        h.env.put("QUEEN_KV_PEERS", peers);
        nodes.put(id, h);
        launch(h);
        awaitHealthy(id, READY_TIMEOUT);
        return h;
    }

    /**
     * Forgets a node (after it was removed from the group through the admin API): stops its process
     * (SIGTERM) if it still runs and deletes its data dir; its log stays.
     */
    public void removeFromHarness(String id) {
        NodeHandle h = node(id);
        if (h.running()) {
            if (h.paused) resume(id);
            h.process.destroy();
            if (!waitForExit(h, Duration.ofSeconds(20))) {
                h.process.destroyForcibly();
                waitForExit(h, Duration.ofSeconds(10));
            }
        }
        nodes.remove(id);
        note(h, "removed from the harness");
        if (!Boolean.getBoolean("queenkv.keepData")) deleteTree(h.dataDir.getParent());
    }

    // ---- queries ----------------------------------------------------------------------------------

    public NodeHandle node(String id) {
        NodeHandle h = nodes.get(id);
        if (h == null) throw new IllegalArgumentException("no node " + id + " in the harness (have " + nodes.keySet() + ")");
        return h;
    }

    public String url(String id) {
        return node(id).url();
    }

    public String raftAddress(String id) {
        return node(id).raftAddress();
    }

    public String httpAddress(String id) {
        return node(id).httpAddress();
    }

    /** The original peer list every original node was started with. */
    public String peers() {
        return peers;
    }

    /** All node ids the harness tracks, in creation order. */
    public List<String> ids() {
        return List.copyOf(nodes.keySet());
    }

    /** Ids of nodes whose process runs and is not paused. */
    public List<String> liveIds() {
        return nodes.values().stream().filter(h -> h.running() && !h.paused).map(h -> h.id).toList();
    }

    public KvHttp http() {
        return http;
    }

    /**
     * The leader a majority of the live (running, not paused) nodes agree on, awaited (up to
     * {@link #LEADER_TIMEOUT}). The leader must itself be live and report {@code role:"leader"}.
     */
    public String leaderId() {
        return leaderId(LEADER_TIMEOUT);
    }

    public String leaderId(Duration timeout) {
        AtomicReference<String> found = new AtomicReference<>();
        awaitOrFail("a leader that a majority of live nodes agree on", timeout, () -> {
            Optional<String> l = currentLeader();
            l.ifPresent(found::set);
            return l.isPresent();
        });
        return found.get();
    }

    /** One round of asking every live node; empty when there is no agreed, live leader right now. */
    public Optional<String> currentLeader() {
        List<String> live = liveIds();
        if (live.isEmpty()) return Optional.empty();
        Map<String, Integer> votes = new HashMap<>();
        Map<String, JsonNode> views = new HashMap<>();
        for (String id : live) {
            KvHttp.Reply r = http.cluster(url(id));
            if (!r.ok()) continue;
            views.put(id, r.body());
            JsonNode leader = r.body().get("leaderId");
            if (leader != null && leader.isTextual()) votes.merge(leader.asText(), 1, Integer::sum);
        }
        return votes.entrySet().stream()
                .filter(e -> e.getValue() * 2 > live.size())
                .map(Map.Entry::getKey)
                .filter(live::contains)
                .filter(l -> views.containsKey(l) && "leader".equals(views.get(l).path("role").asText()))
                .findFirst();
    }

    /** Some live node that is not the current leader. */
    public String anyFollower() {
        String leader = leaderId();
        return liveIds().stream().filter(id -> !id.equals(leader)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no live follower"));
    }

    // ---- diagnostics --------------------------------------------------------------------------------

    public Path baseDir() {
        return baseDir;
    }

    /** Every node's state and log file, one line each. */
    public String describe() {
        return nodes.values().stream()
                .map(h -> String.format("  %s http=%s raft=%d %s log=%s", h.id, h.url(), h.raftPort,
                        h.process == null ? "never started" : h.running() ? (h.paused ? "PAUSED pid " : "running pid ") + h.pid()
                                : "exited(" + h.process.exitValue() + ")", h.logFile))
                .collect(Collectors.joining("\n", "cluster in " + baseDir + ":\n", ""));
    }

    /**
     * Writes a thread dump of every running node that is not paused to {@code <id>-threads.txt} in the
     * cluster dir ({@code jcmd Thread.print}), so a node that stopped making progress shows where.
     * Answers where each went, or why not, one line per node.
     */
    public String threadDumps() {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        StringBuilder sb = new StringBuilder();
        for (NodeHandle h : nodes.values()) {
            if (!h.running() || h.paused) continue;
            Path out = baseDir.resolve(h.id + "-threads.txt");
            try {
                Process p = new ProcessBuilder(jcmd.toString(), Long.toString(h.pid()), "Thread.print")
                        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
                boolean done = p.waitFor(30, TimeUnit.SECONDS);
                sb.append("  ").append(h.id).append(done && p.exitValue() == 0 ? " threads in " + out : " thread dump failed, see " + out).append('\n');
            } catch (IOException e) {
                sb.append("  ").append(h.id).append(" no thread dump (").append(e.getMessage()).append(")\n");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return sb.toString();
            }
        }
        return sb.toString();
    }

    /** {@link #describe()} plus the last lines of every node's log. */
    public String describeWithLogs() {
        StringBuilder sb = new StringBuilder(describe()).append('\n');
        for (NodeHandle h : nodes.values()) sb.append(tail(h));
        return sb.toString();
    }

    private static String tail(NodeHandle h) {
        try {
            if (!Files.exists(h.logFile)) return "  (no log " + h.logFile + ")\n";
            List<String> lines = Files.readAllLines(h.logFile, StandardCharsets.UTF_8);
            List<String> last = lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size());
            return firstErrors(h, lines)
                    + "----- last " + last.size() + " lines of " + h.logFile + "\n" + String.join("\n", last) + "\n";
        } catch (IOException | java.io.UncheckedIOException e) {
            return "  (could not read " + h.logFile + ": " + e + ")\n";
        }
    }

    /** The first lines logged at ERROR, each with the few lines after it (its cause): often the start of a failure. */
    private static String firstErrors(NodeHandle h, List<String> lines) {
        StringBuilder sb = new StringBuilder();
        int shown = 0;
        for (int i = 0; i < lines.size() && shown < 3; i++) {
            if (!lines.get(i).contains(" ERROR ")) continue;
            if (shown++ == 0) sb.append("----- first errors in ").append(h.logFile).append('\n');
            lines.subList(i, Math.min(lines.size(), i + 6)).forEach(l -> sb.append(l).append('\n'));
        }
        return sb.toString();
    }

    private void awaitOrFail(String what, Duration timeout, java.util.concurrent.Callable<Boolean> condition) {
        try {
            await(what).atMost(timeout).pollInterval(Duration.ofMillis(100)).pollDelay(Duration.ZERO)
                    .ignoreExceptionsMatching(e -> !(e instanceof IllegalStateException))
                    .until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what + "\n"
                    + describeWithLogs(), e);
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause())
                if (t instanceof IllegalStateException) throw new AssertionError(t.getMessage() + "\n" + describe(), e);
            throw e;
        }
    }

    /**
     * Kills every process (SIGKILL; a paused one too) and deletes the data dirs and the jar copy;
     * the logs stay. {@code -Dqueenkv.keepData=true} keeps everything.
     */
    @Override
    public void close() {
        for (NodeHandle h : nodes.values()) {
            if (h.running()) {
                h.process.destroyForcibly();
            }
        }
        for (NodeHandle h : nodes.values()) {
            if (h.process != null) waitForExit(h, Duration.ofSeconds(10));
        }
        if (!Boolean.getBoolean("queenkv.keepData")) {
            for (NodeHandle h : nodes.values()) deleteTree(h.dataDir.getParent());
            try {
                Files.deleteIfExists(nodeJar);
            } catch (IOException ignored) {
                // best effort
            }
        }
        System.out.println("[e2e] cluster closed; logs in " + baseDir);
    }

    /** Deletes a directory tree, best effort (test data and logs). */
    public static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) return;
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
