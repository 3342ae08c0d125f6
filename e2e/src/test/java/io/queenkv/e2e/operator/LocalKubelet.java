package io.queenkv.e2e.operator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.queenkv.e2e.harness.NodeProcessCluster;
import io.queenkv.operator.crd.QueenKvCluster;

/**
 * Test-only kubelet for one node ({@value #NODE_NAME}) that runs pods as local node processes, and for
 * Fabric8's mock API server (where nothing runs pods) also the StatefulSet controller and the garbage
 * collector ({@link Duties}). Every {@value #PERIOD_MS} ms it:
 * <ul>
 *   <li>with {@link Duties#KUBELET} (a real control plane): binds pending pods to its node (there is no
 *       scheduler), runs the containers of the pods bound to it, and finishes a pod's deletion once its
 *       container has stopped (pre-stop hook, SIGTERM, SIGKILL after the pod's grace period);</li>
 *   <li>with {@link Duties#KUBELET_AND_CONTROLLERS} (the mock) it also makes pods {@code 0..replicas-1} of every StatefulSet exist, from its current template, with
 *       their claims from {@code volumeClaimTemplates}, and deletes pods above {@code replicas};
 *       a pod deleted by someone else (the operator rolling it, {@code OnDelete}) is recreated from the
 *       current template once its process has stopped;</li>
 *   <li>runs each pod's container as a local process: the template's command and args through
 *       {@code sh -c} ({@value #IMAGE_JAR} replaced by the built jar), its env (the downward API
 *       {@code metadata.name/namespace} and config map / secret keys resolved), volume mount paths
 *       mapped to local dirs (a claim's dir lives as long as the claim; a Secret volume's keys, or its
 *       {@code items}, written as files when the container starts, which waits for the Secret), plus
 *       {@code QUEEN_KV_BIND_ADDRESS=<pod IP>} and, appended to {@code JAVA_OPTS}, a heap cap,
 *       {@code java.io.tmpdir} and {@code -Djdk.net.hosts.file}; a process that exits on its own is
 *       restarted (restartCount + 1), as a kubelet restarts a container, except in a pod with
 *       {@code restartPolicy: Never} (a Job's: {@value #IMAGE_CLI_JAR} replaced by the built CLI, its
 *       script's mount paths mapped too, the hosts file in {@code JAVA_TOOL_OPTIONS}), which ends
 *       {@code Succeeded} or {@code Failed} with its exit code; it holds one image
 *       ({@value #IMAGE}): a pod of another stays Pending in {@code ImagePullBackOff};</li>
 *   <li>gives every pod its own loopback address ({@code 127.x.y.z}: Linux routes all of 127/8 to lo),
 *       so the template's container ports stay as they are, and a hosts file mapping the pods' DNS
 *       names ({@code <pod>.<serviceName>.<ns>.svc}) to those addresses, and each StatefulSet's
 *       client Service ({@code <name>.<ns>.svc}) to its first pod's;</li>
 *   <li>sets each pod's Ready condition from its readiness probe (HTTP or HTTPS GET on the pod address; HTTPS
 *       trusts the cluster CA, {@code ca.crt} of the pod's Secret volume), with the probe's timeout, period
 *       and thresholds ({@link ReadinessProbe}), and keeps
 *       the StatefulSet's status (replicas, ready/current/updated, revisions) true;</li>
 *   <li>deletes what an owner reference says is owned by something gone (the mock has no garbage
 *       collector), stops the processes of deleted pods and deletes the data dir of a deleted claim.</li>
 * </ul>
 */
final class LocalKubelet implements AutoCloseable {
    /** What it does besides a kubelet's work. */
    enum Duties {
        /** A real control plane runs the controllers and the scheduler's one decision is ours: bind to this node. */
        KUBELET,
        /** The mock API server runs nothing: create pods and claims, keep StatefulSet status, collect garbage. */
        KUBELET_AND_CONTROLLERS
    }

    static final String NODE_NAME = "local";
    static final String IMAGE_JAR = "/app/queen-kv-node.jar";
    /** The CLI in the node image (the backup CronJob's container runs it); here the built jar. */
    static final String IMAGE_CLI_JAR = "/app/queen-kv-cli.jar";
    /** The one image this node holds (the built jar runs as it); a pod of any other waits in ImagePullBackOff. */
    static final String IMAGE = "queen-kv-node:local";
    static final int PERIOD_MS = 100;
    /** Ordinals that get an address (and a hosts entry) up front: a pod's name must resolve before it exists. */
    static final int MAX_ORDINALS = 9;
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    /** One pod's running container. */
    final class PodProcess {
        final String pod;
        final String uid;
        final String ip;
        final List<String> command;
        final Map<String, String> env;
        final Path dir;
        /** The container's pre-stop exec command (empty: none). */
        final List<String> preStop;
        /** Trusts the cluster CA of the pod's TLS Secret, for HTTPS probes (null: none mounted). */
        final javax.net.ssl.SSLContext probeTls;
        volatile Process process;
        volatile boolean stopping;
        volatile int restarts;
        volatile boolean ready;
        /** Set once a container that is not restarted ({@code restartPolicy: Never}, a Job's) exited: its exit code. */
        volatile Integer exitCode;
        /** The readiness probe of the container now running (a restarted container starts not ready). */
        volatile ReadinessProbe readiness = new ReadinessProbe();

        PodProcess(String pod, String uid, String ip, List<String> command, Map<String, String> env, Path dir, List<String> preStop,
                   javax.net.ssl.SSLContext probeTls) {
            this.preStop = preStop;
            this.probeTls = probeTls;
            this.pod = pod;
            this.uid = uid;
            this.ip = ip;
            this.command = command;
            this.env = env;
            this.dir = dir;
        }

        long pid() { return process.pid(); }
    }

    private final KubernetesClient client;
    private final String namespace;
    private final Duties duties;
    private final Path nodeJar;
    private final Path baseDir;
    private final Path hostsFile;
    private final List<String> extraJvmArgs;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).version(HttpClient.Version.HTTP_1_1).build();
    /** Pod host name (and pod name) → its loopback address. */
    private final Map<String, String> addresses = new ConcurrentHashMap<>();
    private final Map<String, PodProcess> processes = new ConcurrentHashMap<>();
    /** Pods whose process is being stopped: the pod name is not reused until it has exited. */
    private final Map<String, CompletableFuture<Void>> stopping = new ConcurrentHashMap<>();
    /**
     * Claim uid → its local dir ({@code volumes/<claim name>/<uid>}): a claim deleted and made again under
     * the same name is a new, empty volume, as a provisioner would give.
     */
    private final Map<String, Path> claimDirs = new ConcurrentHashMap<>();
    private final Map<String, String> currentRevisions = new ConcurrentHashMap<>();
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** Stops run side by side (the common pool has one thread on two cores). */
    private final java.util.concurrent.ExecutorService stopper = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "local-kubelet-stop");
        t.setDaemon(true);
        return t;
    });
    /** Readiness probes run here, side by side, as a kubelet runs one worker per probe. */
    private final java.util.concurrent.ExecutorService prober = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "local-kubelet-probe");
        t.setDaemon(true);
        return t;
    });
    private final String subnet;
    private int nextHost = 10;
    private long rounds;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile Throwable lastError;

    LocalKubelet(KubernetesClient client, String namespace, Path nodeJar, Path baseDir, Duties duties) {
        this.client = client;
        this.namespace = namespace;
        this.duties = duties;
        this.nodeJar = nodeJar;
        this.baseDir = baseDir;
        this.hostsFile = baseDir.resolve("hosts");
        String extra = System.getProperty("queenkv.nodeJvmArgs", "").trim();
        this.extraJvmArgs = extra.isEmpty() ? List.of() : List.of(extra.split("\\s+"));
        Random random = new Random();
        // A random /16 of 127/8: a leftover node of an earlier run cannot hold our addresses.
        this.subnet = "127." + (100 + random.nextInt(150)) + "." + (1 + random.nextInt(250)) + ".";
        writeHosts();
        this.thread = new Thread(this::loop, "local-kubelet");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    // ---- what the scenarios and the operator's resolver use -----------------------------------------

    /** The loopback address of a pod, by pod name or DNS name ({@code <pod>.<svc>.<ns>.svc}). */
    String address(String podOrHost) {
        String ip = addresses.get(podOrHost);
        if (ip == null) ip = addresses.get(podOrHost.split("\\.", 2)[0]);
        if (ip == null) throw new IllegalArgumentException("no address for " + podOrHost + " (have " + addresses.keySet() + ")");
        return ip;
    }

    /** SIGKILL to the pod's process; the loop notices the exit and restarts the container. */
    void kill9(String pod) {
        PodProcess p = processes.get(pod);
        if (p == null || p.process == null || !p.process.isAlive()) throw new IllegalStateException(pod + " has no running process");
        // sh exec'd java, so the pod's process is the JVM itself
        p.process.destroyForcibly();
        event("killed " + pod + " (pid " + p.pid() + ") with SIGKILL");
    }

    /** Pods whose process runs, by name. */
    Set<String> runningPods() {
        return processes.values().stream().filter(p -> p.process != null && p.process.isAlive()).map(p -> p.pod)
                .collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    /** The dir of every volume a claim of this name had (each under its claim's uid). */
    Path claimDir(String claim) { return baseDir.resolve("volumes").resolve(claim); }

    Path logFile(String pod) { return baseDir.resolve("logs").resolve(pod + ".log"); }

    /** The command line of a pod's running process (empty when none). */
    String commandLine(String pod) {
        PodProcess p = processes.get(pod);
        if (p == null || p.process == null) return "";
        return p.process.info().commandLine().orElse(String.join(" ", p.command));
    }

    List<String> events() { return List.copyOf(events); }

    Path baseDir() { return baseDir; }

    Throwable lastError() { return lastError; }

    // ---- the loop ------------------------------------------------------------------------------------

    private void loop() {
        while (!stopped) {
            long start = System.nanoTime();
            try {
                round();
            } catch (KubernetesClientException e) {
                // a conflict with the operator; the next round sees the new state
                if (e.getCode() != 409 && e.getCode() != 404) lastError = e;
            } catch (RuntimeException e) {
                if (!stopped) {
                    lastError = e;
                    event("round failed: " + e);
                }
            }
            long left = PERIOD_MS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (left > 0) {
                try {
                    Thread.sleep(left); // the loop's period, not a wait for a condition
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private synchronized void round() {
        rounds++;
        boolean controllers = duties == Duties.KUBELET_AND_CONTROLLERS;
        if (controllers && rounds % 5 == 0) collectGarbage();
        List<StatefulSet> sets = client.apps().statefulSets().inNamespace(namespace).list().getItems();
        List<Pod> pods = client.pods().inNamespace(namespace).list().getItems();

        // Containers of pods that are gone (or replaced) stop.
        Map<String, Pod> byName = new TreeMap<>();
        for (Pod p : pods) byName.put(p.getMetadata().getName(), p);
        for (PodProcess p : List.copyOf(processes.values())) {
            Pod live = byName.get(p.pod);
            if (live == null || !live.getMetadata().getUid().equals(p.uid)) stop(p, "pod deleted", STOP_GRACE);
            else if (live.getMetadata().getDeletionTimestamp() != null) stop(p, "pod deleted", gracePeriod(live));
        }

        if (controllers) {
            for (StatefulSet sts : sets) reconcile(sts, pods);
        } else {
            // Pod names must resolve before the pods exist (the nodes' hosts file is read once).
            for (StatefulSet sts : sets) {
                for (int i = 0; i < MAX_ORDINALS; i++) assign(sts.getMetadata().getName() + "-" + i, sts.getSpec().getServiceName());
                // The client Service (named as the StatefulSet) resolves to its first pod: one address stands in for the Service's.
                String service = sts.getMetadata().getName() + "." + namespace + ".svc";
                if (!addresses.containsKey(service)) {
                    addresses.put(service, addresses.get(sts.getMetadata().getName() + "-0"));
                    addresses.put(service + ".cluster.local", addresses.get(sts.getMetadata().getName() + "-0"));
                    writeHosts();
                }
            }
            for (Pod p : pods) runAsKubelet(p);
        }

        // Claims that are gone take their data with them.
        if (rounds % 5 == 0) {
            Set<String> claims = client.persistentVolumeClaims().inNamespace(namespace).list().getItems().stream()
                    .map(c -> c.getMetadata().getUid()).collect(Collectors.toSet());
            for (Map.Entry<String, Path> e : List.copyOf(claimDirs.entrySet())) {
                if (claims.contains(e.getKey())) continue;
                boolean inUse = processes.values().stream().anyMatch(p -> p.env.containsValue(e.getValue().toString()))
                        || stopping.values().stream().anyMatch(f -> !f.isDone());
                if (inUse) continue;
                deleteTree(e.getValue());
                claimDirs.remove(e.getKey());
                // the claim's name dir goes with its last volume
                try (var left = Files.list(e.getValue().getParent())) {
                    if (left.findAny().isEmpty()) Files.delete(e.getValue().getParent());
                } catch (IOException ignored) {
                    // best effort: a dir of a claim that is not there is only disk space
                }
                event("claim " + e.getKey() + " deleted: removed " + e.getValue());
            }
        }
    }

    private void reconcile(StatefulSet sts, List<Pod> allPods) {
        String name = sts.getMetadata().getName();
        String service = sts.getSpec().getServiceName();
        for (int i = 0; i < MAX_ORDINALS; i++) assign(name + "-" + i, service);
        int replicas = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
        String revision = revision(sts);

        Map<Integer, Pod> pods = new TreeMap<>();
        for (Pod p : allPods) {
            if (!ownedBy(p, sts)) continue;
            int ordinal = ordinal(name, p.getMetadata().getName());
            if (ordinal >= 0) pods.put(ordinal, p);
        }
        // Scale down: pods above replicas go (their claims stay, as whenScaled decides; the operator deletes them).
        for (Map.Entry<Integer, Pod> e : List.copyOf(pods.entrySet())) {
            if (e.getKey() < replicas) continue;
            String pod = e.getValue().getMetadata().getName();
            client.pods().inNamespace(namespace).withName(pod).delete();
            PodProcess p = processes.get(pod);
            if (p != null) stop(p, "scaled down", STOP_GRACE);
            pods.remove(e.getKey());
            event("scale down: deleted pod " + pod);
        }
        // Missing pods (new, or deleted to roll them) come from the current template.
        for (int i = 0; i < replicas; i++) {
            if (pods.containsKey(i)) continue;
            String pod = name + "-" + i;
            CompletableFuture<Void> s = stopping.get(pod);
            if (s != null && !s.isDone()) continue; // the old container is still stopping
            pods.put(i, createPod(sts, i, revision));
        }
        for (Pod p : pods.values()) runContainer(p);
        updateStatefulSetStatus(sts, pods, replicas, revision);
    }

    /** A kubelet's view of one pod: bind it if pending, run it if bound here, finish its deletion once stopped. */
    private void runAsKubelet(Pod p) {
        String pod = p.getMetadata().getName();
        String node = p.getSpec().getNodeName();
        if (node != null && !node.equals(NODE_NAME)) return;
        if (p.getMetadata().getDeletionTimestamp() != null) {
            CompletableFuture<Void> s = stopping.get(pod);
            boolean stopped = !processes.containsKey(pod) && (s == null || s.isDone());
            if (!stopped) return;
            // The container is gone: as a kubelet, take the pod off the API server for good.
            client.pods().inNamespace(namespace).withName(pod).withGracePeriod(0).delete();
            event("pod " + pod + " (uid " + p.getMetadata().getUid() + ") stopped: deleted");
            return;
        }
        if (node == null) {
            client.bindings().inNamespace(namespace).resource(new io.fabric8.kubernetes.api.model.BindingBuilder()
                    .withNewMetadata().withName(pod).withNamespace(namespace).endMetadata()
                    .withNewTarget().withApiVersion("v1").withKind("Node").withName(NODE_NAME).endTarget()
                    .build()).create();
            event("bound pod " + pod + " to " + NODE_NAME);
            return; // the next round sees it bound
        }
        assign(pod, p.getSpec().getSubdomain());
        runContainer(p);
    }

    /** Starts the pod's container, restarts it when it exited, probes its readiness into the pod's status. */
    private void runContainer(Pod p) {
        String pod = p.getMetadata().getName();
        if (!IMAGE.equals(p.getSpec().getContainers().get(0).getImage())) {
            cannotPull(p);
            return;
        }
        PodProcess proc = processes.get(pod);
        if (proc == null) proc = start(p);
        if (proc == null) return;
        if (proc.exitCode != null) return; // ran to completion: its status is final
        if (!proc.stopping && !proc.process.isAlive() && runsToCompletion(p)) {
            proc.exitCode = proc.process.exitValue();
            event(pod + " exited with " + proc.exitCode + "; restartPolicy Never: " + (proc.exitCode == 0 ? "Succeeded" : "Failed"));
            PodStatus done = finishedStatus(p.getSpec().getContainers().get(0), proc.ip, proc.exitCode);
            String uid = proc.uid;
            client.pods().inNamespace(namespace).withName(pod).editStatus(live -> {
                if (live.getMetadata().getUid().equals(uid)) live.setStatus(done);
                return live;
            });
            return;
        }
        if (!proc.stopping && !proc.process.isAlive()) {
            event(pod + " exited with " + proc.process.exitValue() + "; restarting its container");
            proc.restarts++;
            launch(proc);
        }
        boolean ready = proc.process.isAlive() && proc.readiness.ready(p, proc);
        updatePodStatus(p, proc, ready);
    }

    /**
     * A container's readiness probe as a kubelet runs it: each attempt within the probe's
     * {@code timeoutSeconds}, off the kubelet's loop (a slow pod holds up no other); once ready, an attempt
     * every {@code periodSeconds}, and not ready only after {@code failureThreshold} failures in a row;
     * ready after {@code successThreshold} successes in a row. While not ready it tries every round, sooner
     * than a kubelet would, so the scenarios do not wait out probe periods. Treating one slow answer as
     * not ready (as this class once did) reported whole quorums down on a busy machine while they served.
     */
    final class ReadinessProbe {
        private volatile boolean ready;
        private volatile boolean running;
        private long lastStartNanos;
        private int successes;
        private int failures;

        /** The state after the attempts finished so far; starts the next attempt when one is due. */
        boolean ready(Pod pod, PodProcess p) {
            Probe probe = pod.getSpec().getContainers().get(0).getReadinessProbe();
            if (probe == null || probe.getHttpGet() == null) return true;
            long period = TimeUnit.SECONDS.toNanos(orDefault(probe.getPeriodSeconds(), 10));
            if (!running && (!ready || System.nanoTime() - lastStartNanos >= period)) {
                running = true;
                lastStartNanos = System.nanoTime();
                prober.execute(() -> {
                    try {
                        record(probe, attempt(pod, p, probe));
                    } finally {
                        running = false;
                    }
                });
            }
            return ready;
        }

        private synchronized void record(Probe probe, boolean passed) {
            if (passed) {
                failures = 0;
                if (++successes >= orDefault(probe.getSuccessThreshold(), 1)) ready = true;
            } else {
                successes = 0;
                if (++failures >= orDefault(probe.getFailureThreshold(), 3)) ready = false;
            }
        }
    }

    private static int orDefault(Integer value, int otherwise) {
        return value == null || value <= 0 ? otherwise : value;
    }

    /** As a kubelet that cannot pull the pod's image: the pod stays Pending, its container waiting in ImagePullBackOff. */
    private void cannotPull(Pod p) {
        Container c = p.getSpec().getContainers().get(0);
        PodStatus have = p.getStatus();
        boolean shown = have != null && "Pending".equals(have.getPhase()) && have.getContainerStatuses() != null
                && have.getContainerStatuses().stream().anyMatch(cs -> cs.getState() != null && cs.getState().getWaiting() != null
                        && "ImagePullBackOff".equals(cs.getState().getWaiting().getReason()));
        if (shown) return;
        String now = Instant.now().toString();
        String ip = address(p.getMetadata().getName());
        PodStatus want = new PodStatusBuilder().withPhase("Pending").withPodIP(ip).withPodIPs(new io.fabric8.kubernetes.api.model.PodIP(ip))
                .withHostIP("127.0.0.1").withStartTime(now)
                .withConditions(new PodConditionBuilder().withType("Ready").withStatus("False").withLastTransitionTime(now).build(),
                        new PodConditionBuilder().withType("ContainersReady").withStatus("False").withLastTransitionTime(now).build())
                .withContainerStatuses(new ContainerStatusBuilder().withName(c.getName()).withImage(c.getImage()).withImageID("")
                        .withReady(false).withStarted(false).withRestartCount(0)
                        .withNewState().withNewWaiting().withReason("ImagePullBackOff")
                        .withMessage("Back-off pulling image \"" + c.getImage() + "\": this node holds only " + IMAGE).endWaiting().endState()
                        .build())
                .build();
        String uid = p.getMetadata().getUid();
        client.pods().inNamespace(namespace).withName(p.getMetadata().getName()).editStatus(live -> {
            if (!live.getMetadata().getUid().equals(uid)) return live;
            live.setStatus(want);
            return live;
        });
        event(p.getMetadata().getName() + " cannot pull " + c.getImage() + ": ImagePullBackOff");
    }

    private static Duration gracePeriod(Pod p) {
        Long seconds = p.getMetadata().getDeletionGracePeriodSeconds();
        return seconds == null ? STOP_GRACE : Duration.ofSeconds(seconds);
    }

    // ---- pods ----------------------------------------------------------------------------------------

    private Pod createPod(StatefulSet sts, int ordinal, String revision) {
        String name = sts.getMetadata().getName();
        String pod = name + "-" + ordinal;
        for (PersistentVolumeClaim template : sts.getSpec().getVolumeClaimTemplates()) {
            String claim = template.getMetadata().getName() + "-" + pod;
            if (client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get() == null) {
                client.persistentVolumeClaims().inNamespace(namespace).resource(new PersistentVolumeClaimBuilder()
                        .withNewMetadata().withName(claim).withNamespace(namespace).withLabels(template.getMetadata().getLabels()).endMetadata()
                        .withSpec(template.getSpec())
                        .withNewStatus().withPhase("Bound").endStatus()
                        .build()).create();
                event("created claim " + claim);
            }
        }
        var template = sts.getSpec().getTemplate();
        Map<String, String> labels = new LinkedHashMap<>(template.getMetadata().getLabels());
        labels.put("statefulset.kubernetes.io/pod-name", pod);
        labels.put("controller-revision-hash", revision);
        labels.put("apps.kubernetes.io/pod-index", String.valueOf(ordinal));
        Pod created = client.pods().inNamespace(namespace).resource(new PodBuilder()
                .withNewMetadata().withName(pod).withNamespace(namespace).withLabels(labels)
                .withAnnotations(template.getMetadata().getAnnotations())
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("StatefulSet").withName(name)
                        .withUid(sts.getMetadata().getUid()).withController(true).withBlockOwnerDeletion(true).build())
                .endMetadata()
                .withSpec(template.getSpec())
                .editSpec().withHostname(pod).withSubdomain(sts.getSpec().getServiceName()).withNodeName("local").endSpec()
                .withStatus(podStatus(template.getSpec().getContainers().get(0), address(pod), false, 0))
                .build()).create();
        event("created pod " + pod + " (revision " + revision + ")");
        return created;
    }

    private PodProcess start(Pod pod) {
        String name = pod.getMetadata().getName();
        Container c = pod.getSpec().getContainers().get(0);
        String ip = address(name);
        Path dir = baseDir.resolve("pods").resolve(name + "-" + pod.getMetadata().getUid().substring(0, 8));
        // Volumes: a claim template's volume lives in the claim's dir; anything else (emptyDir, Secret) in the pod's dir.
        Map<String, Path> mounts = new LinkedHashMap<>();
        Map<Path, Map<String, String>> secretFiles = new LinkedHashMap<>();
        for (VolumeMount m : c.getVolumeMounts()) {
            Volume volume = pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(m.getName())).findFirst().orElse(null);
            // The mock's pods leave the claim templates' volumes out; the real StatefulSet controller names the claim.
            String claim = volume == null ? m.getName() + "-" + name
                    : volume.getPersistentVolumeClaim() != null ? volume.getPersistentVolumeClaim().getClaimName() : null;
            Path local = dir.resolve("volumes").resolve(m.getName());
            if (claim != null) {
                PersistentVolumeClaim bound = client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get();
                // as a kubelet: the container waits for its volume, and a claim being deleted is no volume to start on
                if (bound == null || bound.getMetadata().getDeletionTimestamp() != null) return null;
                local = claimDir(claim).resolve(bound.getMetadata().getUid());
                claimDirs.put(bound.getMetadata().getUid(), local);
            }
            if (volume != null && volume.getSecret() != null) {
                Map<String, String> files = secretFiles(volume.getSecret());
                if (files == null) return null; // as a kubelet: the container waits for its Secret
                secretFiles.put(local, files);
            }
            mounts.put(m.getMountPath(), local);
        }
        Path tmp = mounts.getOrDefault("/tmp", dir.resolve("tmp"));
        javax.net.ssl.SSLContext probeTls = null;
        try {
            for (Path p : mounts.values()) Files.createDirectories(p);
            for (Map.Entry<Path, Map<String, String>> e : secretFiles.entrySet())
                for (Map.Entry<String, String> f : e.getValue().entrySet()) {
                    Path file = e.getKey().resolve(f.getKey());
                    Files.createDirectories(file.getParent());
                    Files.writeString(file, f.getValue(), StandardCharsets.UTF_8);
                    if (f.getKey().equals("ca.crt")) probeTls = io.queenkv.operator.tls.ClusterTrust.trusting(f.getValue());
                }
            Files.createDirectories(tmp);
            Files.createDirectories(logFile(name).getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }

        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar e : c.getEnv()) env.put(e.getName(), mapPaths(resolve(pod, e), mounts));
        env.put("QUEEN_KV_BIND_ADDRESS", ip);
        List<String> jvm = new ArrayList<>(List.of("-Xmx256m", "-Djava.io.tmpdir=" + tmp, "-Djdk.net.hosts.file=" + hostsFile));
        jvm.addAll(extraJvmArgs);
        env.put("JAVA_OPTS", (env.getOrDefault("JAVA_OPTS", "") + " " + String.join(" ", jvm)).trim());

        // A job's script names its mount paths itself (a node's takes them from the environment).
        boolean job = runsToCompletion(pod);
        List<String> command = new ArrayList<>();
        for (String s : c.getCommand()) command.add(imagePaths(job ? mountPaths(s, mounts) : s));
        for (String s : c.getArgs()) command.add(imagePaths(job ? mountPaths(s, mounts) : s));
        if (command.isEmpty()) command.addAll(List.of("sh", "-c", "exec java $JAVA_OPTS -jar " + nodeJar));
        // A job's JVMs resolve the Services' names as the nodes do, whatever options its script gives them.
        if (job) env.put("JAVA_TOOL_OPTIONS", "-Djdk.net.hosts.file=" + hostsFile + " -Djava.io.tmpdir=" + tmp);

        List<String> preStop = c.getLifecycle() != null && c.getLifecycle().getPreStop() != null && c.getLifecycle().getPreStop().getExec() != null
                ? List.copyOf(c.getLifecycle().getPreStop().getExec().getCommand()) : List.of();
        PodProcess p = new PodProcess(name, pod.getMetadata().getUid(), ip, command, env, dir, preStop, probeTls);
        processes.put(name, p);
        launch(p);
        return p;
    }

    private void launch(PodProcess p) {
        ProcessBuilder pb = new ProcessBuilder(p.command).directory(p.dir.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("QUEEN_KV_") || k.equals("JAVA_OPTS") || k.equals("JAVA_TOOL_OPTIONS"));
        env.put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.putAll(p.env);
        Path log = logFile(p.pod);
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        try {
            Files.writeString(log, "\n===== [local-kubelet] " + LocalDateTime.now() + " starting container of " + p.pod + " (uid "
                    + p.uid + ", restart " + p.restarts + ") at " + p.ip + ": " + p.command + "\n===== env " + p.env + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            p.readiness = new ReadinessProbe();
            p.process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + p.pod, e);
        }
        event("started " + p.pod + " pid " + p.process.pid() + " at " + p.ip + (p.restarts > 0 ? " (restart " + p.restarts + ")" : ""));
    }

    /**
     * In the background, as a kubelet stops a container: the pre-stop hook (the operator's sleeps, so the
     * Service drops the pod before the node stops answering), then SIGTERM (the node hands off leadership
     * and exits), SIGKILL after the grace period.
     */
    private void stop(PodProcess p, String why, Duration grace) {
        if (p.stopping) return;
        p.stopping = true;
        processes.remove(p.pod, p);
        Process proc = p.process;
        event("stopping " + p.pod + " pid " + proc.pid() + ": " + why);
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            if (!p.preStop.isEmpty() && proc.isAlive()) runPreStop(p);
            proc.destroy();
            try {
                if (!proc.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    proc.destroyForcibly();
                    proc.waitFor(10, TimeUnit.SECONDS);
                    event(p.pod + " did not stop within " + grace.toSeconds() + " s of SIGTERM: killed");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            deleteTree(p.dir);
            event(p.pod + " pid " + proc.pid() + " stopped" + (proc.isAlive() ? "" : " (exit " + proc.exitValue() + ")"));
        }, stopper);
        stopping.put(p.pod, done);
    }

    private void runPreStop(PodProcess p) {
        try {
            ProcessBuilder pb = new ProcessBuilder(p.preStop).directory(p.dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile(p.pod).toFile()));
            pb.environment().putAll(p.env);
            Process hook = pb.start();
            if (!hook.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) hook.destroyForcibly();
            event(p.pod + " pre-stop hook " + p.preStop + " done");
        } catch (IOException e) {
            event(p.pod + " pre-stop hook failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String resolve(Pod pod, EnvVar e) {
        if (e.getValueFrom() == null) return Objects.requireNonNullElse(e.getValue(), "");
        var from = e.getValueFrom();
        if (from.getFieldRef() != null) {
            return switch (from.getFieldRef().getFieldPath()) {
                case "metadata.name" -> pod.getMetadata().getName();
                case "metadata.namespace" -> pod.getMetadata().getNamespace();
                case "metadata.uid" -> pod.getMetadata().getUid();
                case "status.podIP" -> address(pod.getMetadata().getName());
                case "spec.nodeName" -> "local";
                default -> throw new IllegalArgumentException("unsupported fieldRef " + from.getFieldRef().getFieldPath());
            };
        }
        if (from.getConfigMapKeyRef() != null) {
            ConfigMap cm = client.configMaps().inNamespace(namespace).withName(from.getConfigMapKeyRef().getName()).get();
            return cm == null || cm.getData() == null ? "" : cm.getData().getOrDefault(from.getConfigMapKeyRef().getKey(), "");
        }
        if (from.getSecretKeyRef() != null) {
            Secret s = client.secrets().inNamespace(namespace).withName(from.getSecretKeyRef().getName()).get();
            String v = s == null || s.getData() == null ? null : s.getData().get(from.getSecretKeyRef().getKey());
            return v == null ? "" : new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("unsupported env source for " + e.getName());
    }

    /** The files of a Secret volume (its {@code items}, or every key), or null while the Secret does not exist. */
    private Map<String, String> secretFiles(io.fabric8.kubernetes.api.model.SecretVolumeSource source) {
        Secret s = client.secrets().inNamespace(namespace).withName(source.getSecretName()).get();
        if (s == null) return null;
        Map<String, String> data = new LinkedHashMap<>();
        if (s.getData() != null)
            s.getData().forEach((k, v) -> data.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
        if (s.getStringData() != null) data.putAll(s.getStringData());
        Map<String, String> files = new LinkedHashMap<>();
        if (source.getItems() == null || source.getItems().isEmpty()) return data;
        for (var item : source.getItems()) {
            if (!data.containsKey(item.getKey())) return null; // a missing key fails the mount
            files.put(item.getPath(), data.get(item.getKey()));
        }
        return files;
    }

    /** The image's jars, here the built ones. */
    private String imagePaths(String s) {
        return s.replace(IMAGE_JAR, nodeJar.toString())
                .replace(IMAGE_CLI_JAR, LocalCluster.e2eDir().resolve("../cli/target/queen-kv-cli.jar").toAbsolutePath().normalize().toString());
    }

    /**
     * Every mount path followed by {@code /} in {@code text} replaced by its local dir, in one pass (a
     * local dir may itself start with another mount path, such as {@code /tmp}).
     */
    static String mountPaths(String text, Map<String, Path> mounts) {
        if (mounts.isEmpty()) return text;
        List<String> paths = mounts.keySet().stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                paths.stream().map(java.util.regex.Pattern::quote).collect(Collectors.joining("|", "(", ")/"))).matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(mounts.get(m.group(1)) + "/"));
        return m.appendTail(out).toString();
    }

    /** A pod whose container is not restarted when it exits (a Job's). */
    private static boolean runsToCompletion(Pod p) {
        return "Never".equals(p.getSpec().getRestartPolicy());
    }

    /** An env value that is a mount path, or under one, points at the local dir instead. */
    private static String mapPaths(String value, Map<String, Path> mounts) {
        for (Map.Entry<String, Path> m : mounts.entrySet()) {
            if (value.equals(m.getKey())) return m.getValue().toString();
            if (value.startsWith(m.getKey() + "/")) return m.getValue() + value.substring(m.getKey().length());
        }
        return value;
    }

    /** One attempt of an HTTP(S) GET probe: answered 2xx or 3xx within the probe's timeout. */
    private boolean attempt(Pod pod, PodProcess p, Probe probe) {
        Container c = pod.getSpec().getContainers().get(0);
        int port = port(c, probe.getHttpGet().getPort());
        Duration timeout = Duration.ofSeconds(orDefault(probe.getTimeoutSeconds(), 1));
        if ("HTTPS".equals(probe.getHttpGet().getScheme())) return httpsProbe(p, port, probe.getHttpGet().getPath(), timeout);
        try {
            HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create("http://" + p.ip + ":" + port + probe.getHttpGet().getPath()))
                    .timeout(timeout).GET().build(), HttpResponse.BodyHandlers.discarding());
            return r.statusCode() >= 200 && r.statusCode() < 400;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * An HTTPS probe at the pod's address: the chain must lead to the pod's cluster CA; the name is not
     * checked, as a kubelet probing a pod IP does not check it either.
     */
    private static boolean httpsProbe(PodProcess p, int port, String path, Duration timeout) {
        if (p.probeTls == null) return false;
        try {
            var connection = (javax.net.ssl.HttpsURLConnection) URI.create("https://" + p.ip + ":" + port + path).toURL().openConnection();
            connection.setSSLSocketFactory(p.probeTls.getSocketFactory());
            connection.setHostnameVerifier((host, session) -> true);
            connection.setConnectTimeout((int) timeout.toMillis());
            connection.setReadTimeout((int) timeout.toMillis());
            try {
                int status = connection.getResponseCode();
                return status >= 200 && status < 400;
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    static int port(Container c, io.fabric8.kubernetes.api.model.IntOrString port) {
        if (port.getIntVal() != null) return port.getIntVal();
        return c.getPorts().stream().filter(p -> port.getStrVal().equals(p.getName())).map(ContainerPort::getContainerPort).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no container port named " + port.getStrVal()));
    }

    private void updatePodStatus(Pod pod, PodProcess p, boolean ready) {
        PodStatus want = podStatus(pod.getSpec().getContainers().get(0), p.ip, ready, p.restarts);
        PodStatus have = pod.getStatus();
        if (have != null && Objects.equals(statusKey(have), statusKey(want))) return;
        if (p.ready != ready) event(p.pod + (ready ? " ready" : " not ready"));
        p.ready = ready;
        client.pods().inNamespace(namespace).withName(p.pod).editStatus(live -> {
            if (!live.getMetadata().getUid().equals(p.uid)) return live;
            live.setStatus(want);
            return live;
        });
    }

    private static String statusKey(PodStatus s) {
        boolean ready = s.getConditions() != null && s.getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        int restarts = s.getContainerStatuses() == null || s.getContainerStatuses().isEmpty() ? -1
                : s.getContainerStatuses().get(0).getRestartCount();
        return ready + "/" + restarts + "/" + s.getPodIP();
    }

    private static PodStatus podStatus(Container container, String ip, boolean ready, int restarts) {
        String now = Instant.now().toString();
        String r = ready ? "True" : "False";
        return new PodStatusBuilder()
                .withPhase("Running")
                .withPodIP(ip)
                .withPodIPs(new io.fabric8.kubernetes.api.model.PodIP(ip))
                .withHostIP("127.0.0.1")
                .withStartTime(now)
                .withConditions(
                        new PodConditionBuilder().withType("Ready").withStatus(r).withLastTransitionTime(now).build(),
                        new PodConditionBuilder().withType("ContainersReady").withStatus(r).withLastTransitionTime(now).build())
                .withContainerStatuses(new ContainerStatusBuilder().withName(container.getName()).withImage(container.getImage())
                        .withImageID("").withReady(ready).withStarted(true).withRestartCount(restarts)
                        .withNewState().withNewRunning().withStartedAt(now).endRunning().endState().build())
                .build();
    }

    /** The final status of a container that ran to completion: {@code Succeeded} on exit code 0, else {@code Failed}. */
    private static PodStatus finishedStatus(Container container, String ip, int exitCode) {
        String now = Instant.now().toString();
        return new PodStatusBuilder()
                .withPhase(exitCode == 0 ? "Succeeded" : "Failed")
                .withPodIP(ip)
                .withPodIPs(new io.fabric8.kubernetes.api.model.PodIP(ip))
                .withHostIP("127.0.0.1")
                .withStartTime(now)
                .withConditions(
                        new PodConditionBuilder().withType("Ready").withStatus("False").withLastTransitionTime(now).build(),
                        new PodConditionBuilder().withType("ContainersReady").withStatus("False").withLastTransitionTime(now).build())
                .withContainerStatuses(new ContainerStatusBuilder().withName(container.getName()).withImage(container.getImage())
                        .withImageID("").withReady(false).withStarted(false).withRestartCount(0)
                        .withNewState().withNewTerminated().withExitCode(exitCode).withReason(exitCode == 0 ? "Completed" : "Error")
                        .withStartedAt(now).withFinishedAt(now).endTerminated().endState().build())
                .build();
    }

    // ---- the StatefulSet's status -----------------------------------------------------------------------

    private void updateStatefulSetStatus(StatefulSet sts, Map<Integer, Pod> pods, int replicas, String revision) {
        String name = sts.getMetadata().getName();
        int ready = 0, updated = 0;
        for (Pod p : pods.values()) {
            PodProcess proc = processes.get(p.getMetadata().getName());
            if (proc != null && proc.ready) ready++;
            if (revision.equals(p.getMetadata().getLabels().get("controller-revision-hash"))) updated++;
        }
        String current = currentRevisions.getOrDefault(name, revision);
        if (updated == pods.size()) current = revision;
        currentRevisions.put(name, current);
        int currentCount = 0;
        for (Pod p : pods.values()) if (current.equals(p.getMetadata().getLabels().get("controller-revision-hash"))) currentCount++;
        StatefulSetStatus want = new StatefulSetStatusBuilder()
                .withObservedGeneration(sts.getMetadata().getGeneration())
                .withReplicas(pods.size())
                .withReadyReplicas(ready)
                .withAvailableReplicas(ready)
                .withCurrentReplicas(currentCount)
                .withUpdatedReplicas(updated)
                .withCurrentRevision(current)
                .withUpdateRevision(revision)
                .withCollisionCount(0)
                .build();
        if (want.equals(sts.getStatus())) return;
        client.apps().statefulSets().inNamespace(namespace).withName(name).editStatus(live -> {
            live.setStatus(want);
            return live;
        });
    }

    /** {@code <name>-<hash of the pod template>}, as the StatefulSet controller's revisions. */
    static String revision(StatefulSet sts) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256")
                    .digest(Serialization.asJson(sts.getSpec().getTemplate()).getBytes(StandardCharsets.UTF_8));
            return sts.getMetadata().getName() + "-" + HexFormat.of().formatHex(d).substring(0, 10);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- garbage collection -----------------------------------------------------------------------------

    /** Deletes objects whose every owner is gone (the mock API server has no garbage collector). */
    private void collectGarbage() {
        List<HasMetadata> all = new ArrayList<>();
        all.addAll(client.apps().statefulSets().inNamespace(namespace).list().getItems());
        all.addAll(client.pods().inNamespace(namespace).list().getItems());
        all.addAll(client.services().inNamespace(namespace).list().getItems());
        all.addAll(client.configMaps().inNamespace(namespace).list().getItems());
        all.addAll(client.policy().v1().podDisruptionBudget().inNamespace(namespace).list().getItems());
        all.addAll(client.persistentVolumeClaims().inNamespace(namespace).list().getItems());
        all.addAll(client.secrets().inNamespace(namespace).list().getItems());
        Map<String, Boolean> exists = new LinkedHashMap<>();
        for (HasMetadata o : all) {
            List<OwnerReference> owners = o.getMetadata().getOwnerReferences();
            if (owners == null || owners.isEmpty()) continue;
            boolean anyAlive = owners.stream().anyMatch(ref -> exists.computeIfAbsent(ref.getUid(), uid -> ownerExists(ref)));
            if (anyAlive) continue;
            client.resource(o).delete();
            event("garbage collected " + o.getKind() + " " + o.getMetadata().getName());
        }
    }

    private boolean ownerExists(OwnerReference ref) {
        HasMetadata owner = switch (ref.getKind()) {
            case "StatefulSet" -> client.apps().statefulSets().inNamespace(namespace).withName(ref.getName()).get();
            case "QueenKvCluster" -> client.resources(QueenKvCluster.class).inNamespace(namespace).withName(ref.getName()).get();
            default -> client.genericKubernetesResources(ref.getApiVersion(), ref.getKind()).inNamespace(namespace).withName(ref.getName()).get();
        };
        return owner != null && ref.getUid().equals(owner.getMetadata().getUid());
    }

    // ---- addresses --------------------------------------------------------------------------------------

    private void assign(String pod, String service) {
        if (addresses.containsKey(pod)) return;
        if (nextHost > 250) throw new IllegalStateException("out of loopback addresses in " + subnet + "0/24");
        String ip = subnet + (nextHost++);
        addresses.put(pod, ip);
        String host = pod + "." + service + "." + namespace + ".svc";
        addresses.put(host, ip);
        addresses.put(host + ".cluster.local", ip);
        writeHosts();
    }

    /** The hosts file every node JVM resolves with ({@code -Djdk.net.hosts.file}); rewritten atomically. */
    private void writeHosts() {
        StringBuilder b = new StringBuilder("127.0.0.1 localhost\n");
        Map<String, List<String>> byIp = new TreeMap<>();
        addresses.forEach((name, ip) -> {
            if (name.contains(".")) byIp.computeIfAbsent(ip, k -> new ArrayList<>()).add(name);
        });
        byIp.forEach((ip, names) -> b.append(ip).append(' ').append(String.join(" ", names.stream().sorted().toList())).append('\n'));
        try {
            Files.createDirectories(baseDir);
            Path tmp = Files.createTempFile(baseDir, "hosts", ".tmp");
            Files.writeString(tmp, b.toString(), StandardCharsets.UTF_8);
            Files.move(tmp, hostsFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------------

    private static boolean ownedBy(Pod p, StatefulSet sts) {
        List<OwnerReference> refs = p.getMetadata().getOwnerReferences();
        return refs != null && refs.stream().anyMatch(r -> sts.getMetadata().getUid().equals(r.getUid()));
    }

    static int ordinal(String sts, String pod) {
        String prefix = sts + "-";
        if (pod == null || !pod.startsWith(prefix)) return -1;
        String rest = pod.substring(prefix.length());
        return rest.matches("0|[1-9][0-9]{0,5}") ? Integer.parseInt(rest) : -1;
    }

    private void event(String what) {
        String line = LocalDateTime.now().toLocalTime() + " " + what;
        events.add(line);
        System.out.println("[local-kubelet] " + line);
    }

    static void deleteTree(Path dir) {
        NodeProcessCluster.deleteTree(dir);
    }

    /** Stops the loop and kills every process (SIGKILL). */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (PodProcess p : processes.values()) if (p.process != null) p.process.destroyForcibly();
        for (PodProcess p : processes.values()) {
            try {
                if (p.process != null) p.process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        stopping.values().forEach(f -> f.orTimeout(40, TimeUnit.SECONDS).exceptionally(t -> null).join());
        stopper.shutdownNow();
        prober.shutdownNow();
    }
}
