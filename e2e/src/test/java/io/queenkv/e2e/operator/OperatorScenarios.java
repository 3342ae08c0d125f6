package io.queenkv.e2e.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.opentest4j.TestAbortedException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.queenkv.client.Lifetime;
import io.queenkv.client.QueenKv;
import io.queenkv.client.QueenKvRefusedException;
import io.queenkv.operator.QueenKvReconciler;
import io.queenkv.operator.crd.ClusterPhase;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.MemberStatus;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;
import io.queenkv.operator.crd.QueenKvClusterStatus;
import io.queenkv.operator.model.Labels;
import io.queenkv.operator.crd.TlsMode;
import io.queenkv.operator.crd.TlsSpec;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.model.TlsModel;
import io.queenkv.operator.tls.ClusterTrust;

/**
 * The whole system: the real operator, its real StatefulSet, real node processes. Written once against
 * {@link ClusterUnderTest}; {@code LocalOperatorE2eTest} runs it on this machine, {@code KubeconfigOperatorE2eTest}
 * and {@code K3sOperatorE2eTest} against real clusters. The scenarios share one cluster and run in order
 * (each a test of its own); a writer and a reader ({@link KvLoad}) run against the client Service's pods
 * from the first scenario to the last: no acknowledged write may be lost and no read may go backwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class OperatorScenarios {
    static final String NAME = "kv";
    static final int SMALL_LIMIT = 1024;
    static final String ROLL_OPTION = "-Dqueenkv.e2e.rolled=1";
    static final Duration CREATE_TIMEOUT = Duration.ofMinutes(3);
    static final Duration STEP_TIMEOUT = Duration.ofMinutes(3);

    private final ObjectMapper json = new ObjectMapper();
    /** TLS on (the default) or off for the clusters the scenarios create (see {@link ClusterUnderTest#tls()}). */
    final boolean tls = ClusterUnderTest.tls();
    /** How this JVM calls the pods; with TLS built once the cluster CA exists (see {@link #podHttp()}). */
    private volatile HttpClient http;

    ClusterUnderTest cluster;
    KubernetesClient client;
    String ns;
    KvLoad load;
    /** Every status the resource went through, from a watch. */
    final List<QueenKvClusterStatus> statuses = new CopyOnWriteArrayList<>();
    /** Pod events from a watch: {@code ADDED|MODIFIED|DELETED <pod> <uid>}. */
    final List<String> podEvents = new CopyOnWriteArrayList<>();
    final Map<String, String> timings = new LinkedHashMap<>();
    private final List<Watch> watches = new ArrayList<>();

    /** Where to run; aborts (JUnit assumption) when that place is not available here. */
    abstract ClusterUnderTest open();

    /** Why the scenarios skip here (null: they run). */
    String skipped;

    @BeforeAll
    void setUp() {
        try {
            cluster = open();
        } catch (TestAbortedException e) {
            skipped = e.getMessage();
            System.out.println("[operator-e2e] " + getClass().getSimpleName() + " skips: " + skipped);
            return;
        }
        client = cluster.client();
        ns = cluster.namespace();
        watches.add(client.resources(QueenKvCluster.class).inNamespace(ns).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, QueenKvCluster c) {
                if (c.getStatus() != null) statuses.add(c.getStatus());
            }

            @Override
            public void onClose(WatcherException cause) {}
        }));
        watches.add(client.pods().inNamespace(ns).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod p) {
                podEvents.add(action + " " + p.getMetadata().getName() + " " + p.getMetadata().getUid());
            }

            @Override
            public void onClose(WatcherException cause) {}
        }));
    }

    /** Every scenario reports the skip and its reason (an abort in {@code @BeforeAll} would report none). */
    @BeforeEach
    void skipWhereNotAvailable() {
        Assumptions.assumeTrue(skipped == null, () -> skipped);
    }

    @AfterAll
    void tearDown() {
        if (cluster == null) return;
        if (load != null) {
            System.out.println("[operator-e2e] load: " + load.summary());
            load.close();
        }
        watches.forEach(Watch::close);
        cluster.close();
        System.out.println("[operator-e2e] timings on " + cluster.describe() + ": " + timings);
    }

    // ---------------------------------------------------------------------------------------------

    @Test
    @Order(10)
    void s1_createThreeMembers_availableAndKvWorksThroughAnyPod() {
        scenario("1 create", () -> {
            client.resources(QueenKvCluster.class).inNamespace(ns).resource(newCluster(3)).create();
            QueenKvCluster c = awaitCluster("3 ready members, Available", CREATE_TIMEOUT, k -> settled(k, 3));
            QueenKvClusterStatus s = c.getStatus();
            assertThat(s.getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
            assertThat(s.getLeader()).isIn("n0", "n1", "n2");
            assertThat(s.getBootstrapReplicas()).isEqualTo(3);
            assertThat(statuses).anyMatch(st -> st.getPhase() == ClusterPhase.Creating);
            assertThat(client.apps().statefulSets().inNamespace(ns).withName(NAME).get().getSpec().getReplicas()).isEqualTo(3);
            assertThat(readyPods()).containsExactly("kv-0", "kv-1", "kv-2");

            if (tls) {
                // HTTPS only, with the operator's CA: the nodes' certificate names the pod we call.
                assertThat(client.secrets().inNamespace(ns).withName(NAME + "-ca").get()).isNotNull();
                assertThat(url("kv-0")).startsWith("https://kv-0." + NAME + "-peers." + ns + ".svc:");
                assertThat(nodeView("kv-0").path("members").size()).isEqualTo(3);
            }
            // Bootstrapped: from now on every node starts with existing (and the resource's uid as cluster id).
            assertThat(s.getBootstrappedAt()).isNotNull();
            await("the ConfigMap to say existing").atMost(t(Duration.ofSeconds(10))).until(() -> "existing".equals(
                    client.configMaps().inNamespace(ns).withName(NAME + "-config").get().getData().get("QUEEN_KV_INITIAL_CLUSTER_STATE")));
            assertThat(client.configMaps().inNamespace(ns).withName(NAME + "-config").get().getData())
                    .containsEntry("QUEEN_KV_CLUSTER_ID", c.getMetadata().getUid());

            load = new KvLoad(this::serviceEndpoints, podHttp()).start();

            // KV works through any pod: write through each, read every write through each.
            for (String pod : List.of("kv-0", "kv-1", "kv-2"))
                try (QueenKv kv = kv(pod)) {
                    assertThat(kv.put("e2e-any", "via-" + pod, pod, Lifetime.forever()).applied()).isTrue();
                }
            for (String pod : List.of("kv-0", "kv-1", "kv-2"))
                try (QueenKv kv = kv(pod)) {
                    for (String writer : List.of("kv-0", "kv-1", "kv-2"))
                        assertThat(kv.get("e2e-any", "via-" + writer).value().asText()).as("read of %s's write through %s", writer, pod)
                                .isEqualTo(writer);
                }
            await("the load to get going").atMost(t(Duration.ofSeconds(30))).until(() -> load.writes.get() > 20 && load.reads.get() > 20);
        });
    }

    @Test
    @Order(20)
    void s2_scaleThreeToFiveToThree_oneMemberAtATime() {
        scenario("2 scale 3→5→3", () -> {
            int mark = statuses.size();
            edit(c -> c.getSpec().setReplicas(5));
            QueenKvCluster c = awaitCluster("5 ready members", STEP_TIMEOUT, k -> settled(k, 5));
            assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2", "n3", "n4");
            List<QueenKvClusterStatus> up = since(mark);
            assertThat(operations(up)).containsExactly("ScaleUp n3", "ScaleUp n4");
            assertThat(replicaSteps(up)).containsExactly(3, 4, 5);
            assertThat(up).filteredOn(st -> st.getPendingOperation() != null)
                    .allMatch(st -> st.getPhase() == ClusterPhase.Scaling || st.getPhase() == ClusterPhase.Degraded)
                    .allMatch(st -> st.getReplicas() == st.getPendingOperation().getOrdinal(), "replicas = the ordinal being added");
            assertThat(readyPods()).containsExactly("kv-0", "kv-1", "kv-2", "kv-3", "kv-4");
            assertThat(nodeView("kv-0").path("members").size()).isEqualTo(5);
            assertNoViolations();

            mark = statuses.size();
            edit(k -> k.getSpec().setReplicas(3));
            c = awaitCluster("3 ready members again", STEP_TIMEOUT, k -> settled(k, 3));
            assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
            List<QueenKvClusterStatus> down = since(mark);
            assertThat(operations(down)).containsExactly("ScaleDown n4", "ScaleDown n3");
            assertThat(replicaSteps(down)).containsExactly(5, 4, 3);
            await("pods kv-3, kv-4 and their claims to be gone").atMost(t(Duration.ofSeconds(60))).untilAsserted(() -> {
                assertThat(pods()).containsExactly("kv-0", "kv-1", "kv-2");
                assertThat(claims()).containsExactly("data-kv-0", "data-kv-1", "data-kv-2");
            });
            assertThat(client.apps().statefulSets().inNamespace(ns).withName(NAME).get().getSpec().getReplicas()).isEqualTo(3);
            for (String pod : List.of("kv-0", "kv-1", "kv-2"))
                assertThat(nodeView(pod).path("members").findValuesAsText("id")).as("members in %s's view", pod)
                        .containsExactlyInAnyOrder("n0", "n1", "n2");
            if (cluster instanceof LocalCluster local) {
                await("the removed members' processes and data to be gone").atMost(t(Duration.ofSeconds(60))).untilAsserted(() -> {
                    assertThat(local.kubelet().runningPods()).containsExactly("kv-0", "kv-1", "kv-2");
                    assertThat(local.kubelet().claimDir("data-kv-3")).doesNotExist();
                    assertThat(local.kubelet().claimDir("data-kv-4")).doesNotExist();
                });
            }
            assertNoViolations();
        });
    }

    @Test
    @Order(30)
    void s3_changeMaxValueBytes_everyNodeAtTheSameIndex_noRestart() {
        scenario("3 settings", () -> {
            Map<String, String> before = podIdentities();
            edit(c -> c.getSpec().setSettings(new KvSettings().maxValueBytes(SMALL_LIMIT)));
            QueenKvCluster c = awaitCluster("maxValueBytes " + SMALL_LIMIT + " in force", STEP_TIMEOUT,
                    k -> settled(k, 3) && k.getStatus().getSettings() != null
                            && Objects.equals(k.getStatus().getSettings().getMaxValueBytes(), SMALL_LIMIT));
            long index = c.getStatus().getSettingsIndex();
            await("every node to report the new settings at index " + index).atMost(t(Duration.ofSeconds(30))).untilAsserted(() -> {
                for (String pod : pods()) {
                    JsonNode view = nodeView(pod);
                    assertThat(view.path("settings").path("maxValueBytes").asInt()).as("%s maxValueBytes", pod).isEqualTo(SMALL_LIMIT);
                    assertThat(view.path("settingsIndex").asLong()).as("%s settingsIndex", pod).isEqualTo(index);
                }
            });
            for (String pod : pods())
                try (QueenKv kv = kv(pod)) {
                    assertThatThrownBy(() -> kv.put("e2e-limit", pod, "x".repeat(SMALL_LIMIT + 100), Lifetime.forever()))
                            .as("a value over the new limit through %s", pod)
                            .isInstanceOfSatisfying(QueenKvRefusedException.class, e -> assertThat(e.reason()).isEqualTo("kv_value_too_large"));
                    assertThat(kv.put("e2e-limit", pod, "x".repeat(SMALL_LIMIT - 100), Lifetime.forever()).applied()).isTrue();
                }
            assertThat(podIdentities()).as("pods (uid/restarts) after a settings change: none restarted").isEqualTo(before);
            assertNoViolations();
        });
    }

    @Test
    @Order(40)
    void s4_changeJvmOptions_rollingRestart_followersFirstLeaderLast() {
        scenario("4 rolling restart", () -> {
            QueenKvCluster c0 = current();
            String hashBefore = c0.getStatus().getPodTemplateHash();
            String leaderBefore = c0.getStatus().getLeader();
            Map<String, String> uidsBefore = podUids();
            int mark = statuses.size();
            int podMark = podEvents.size();
            edit(c -> c.getSpec().setJvmOptions(List.of(ROLL_OPTION)));
            QueenKvCluster c = awaitCluster("every pod on the new template", STEP_TIMEOUT, k -> settled(k, 3)
                    && k.getStatus().getPodTemplateHash() != null && !k.getStatus().getPodTemplateHash().equals(hashBefore));
            String hash = c.getStatus().getPodTemplateHash();
            for (Pod p : podList()) {
                assertThat(p.getMetadata().getAnnotations()).containsEntry(Model.POD_TEMPLATE_HASH_ANNOTATION, hash);
                assertThat(p.getMetadata().getUid()).as("%s is a new pod", p.getMetadata().getName())
                        .isNotEqualTo(uidsBefore.get(p.getMetadata().getName()));
            }
            List<String> deleted = podEvents.subList(podMark, podEvents.size()).stream().filter(e -> e.startsWith("DELETED "))
                    .map(e -> e.split(" ")[1]).toList();
            String leaderPod = NAME + "-" + leaderBefore.substring(1);
            assertThat(deleted).as("pods deleted by the roll, in order (leader before: %s)", leaderBefore)
                    .hasSize(3).doesNotHaveDuplicates().endsWith(leaderPod);
            List<String> rolled = operations(since(mark));
            assertThat(rolled).as("roll operations").hasSize(3).allMatch(op -> op.startsWith("Roll "))
                    .endsWith("Roll " + leaderBefore);
            assertThat(since(mark)).filteredOn(st -> st.getPendingOperation() != null).anyMatch(st -> st.getPhase() == ClusterPhase.Rolling);
            if (cluster instanceof LocalCluster local)
                for (String pod : pods())
                    assertThat(local.kubelet().commandLine(pod)).as("%s runs with the new JVM options", pod).contains(ROLL_OPTION);
            assertNoViolations();
        });
    }

    /**
     * An image no node can pull: the roll takes down one follower, whose new pod stays Pending in
     * ImagePullBackOff, and goes no further (a quorum serves on). Reverting the image supersedes the roll
     * and the operator replaces the stuck pod, with no one editing status by hand.
     */
    @Test
    @Order(45)
    void s45_aBadImageReverted_theRollIsSupersededAndTheStuckPodReplaced() {
        scenario("45 a bad image, reverted", () -> {
            QueenKvCluster c0 = current();
            String image = c0.getSpec().getImage();
            String hashBefore = c0.getStatus().getPodTemplateHash();
            int mark = statuses.size();
            edit(c -> c.getSpec().setImage(image + "-does-not-exist"));
            Pod stuck = await("a rolled pod stuck in ImagePullBackOff").atMost(t(STEP_TIMEOUT)).until(() -> podList().stream()
                    .filter(p -> p.getSpec().getContainers().get(0).getImage().endsWith("-does-not-exist") && p.getStatus() != null
                            && p.getStatus().getContainerStatuses() != null && p.getStatus().getContainerStatuses().stream()
                            .anyMatch(cs -> cs.getState() != null && cs.getState().getWaiting() != null
                                    && "ImagePullBackOff".equals(cs.getState().getWaiting().getReason())))
                    .findFirst(), java.util.Optional::isPresent).orElseThrow();
            await("the roll to go no further while that pod is stuck").during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(15))
                    .until(() -> podList().stream().filter(p -> p.getSpec().getContainers().get(0).getImage().equals(image)).count() == 2);

            edit(c -> c.getSpec().setImage(image));
            QueenKvCluster c = awaitCluster("every pod back on the old image", STEP_TIMEOUT, k -> settled(k, 3)
                    && hashBefore.equals(k.getStatus().getPodTemplateHash()));
            assertThat(podList()).allMatch(p -> p.getSpec().getContainers().get(0).getImage().equals(image));
            assertThat(client.pods().inNamespace(ns).withName(stuck.getMetadata().getName()).get().getMetadata().getUid())
                    .as("the stuck pod was replaced").isNotEqualTo(stuck.getMetadata().getUid());
            assertThat(c.getStatus().getMembers()).allMatch(m -> Boolean.TRUE.equals(m.getReady()));
            assertThat(since(mark)).as("a quorum served all along").allMatch(st -> conditionIs(st, QueenKvClusterStatus.AVAILABLE, "True"));
            assertNoViolations();
        });
    }

    @Test
    @Order(50)
    void s5_killAPodsProcess_restartedCatchesUp_degradedAndBack() {
        scenario("5 kill a pod's process", () -> {
            List<String> followers = followers();
            String victimId = followers.get(followers.size() - 1);
            String victim = NAME + "-" + victimId.substring(1);
            Pod before = client.pods().inNamespace(ns).withName(victim).get();
            int restartsBefore = restarts(before);
            int mark = statuses.size();
            cluster.crash(victim);
            awaitCluster(victimId + " not ready: Degraded", Duration.ofSeconds(60), k -> condition(k, QueenKvClusterStatus.DEGRADED, "True")
                    || since(mark).stream().anyMatch(st -> conditionIs(st, QueenKvClusterStatus.DEGRADED, "True")));
            QueenKvCluster c = awaitCluster(victimId + " back: not Degraded", STEP_TIMEOUT, k -> settled(k, 3));
            List<QueenKvClusterStatus> seen = since(mark);
            assertThat(seen).filteredOn(st -> conditionIs(st, QueenKvClusterStatus.DEGRADED, "True"))
                    .isNotEmpty()
                    // NoLeader when the leader was too slow to answer the operator (a busy machine); never anything else.
                    .allMatch(st -> List.of(QueenKvReconciler.REASON_MEMBER_NOT_READY, QueenKvReconciler.REASON_NO_LEADER)
                            .contains(reason(st, QueenKvClusterStatus.DEGRADED)))
                    .allMatch(st -> st.getPhase() == ClusterPhase.Degraded);
            assertThat(seen).as("a quorum served all along").allMatch(st -> conditionIs(st, QueenKvClusterStatus.AVAILABLE, "True"));
            Pod after = client.pods().inNamespace(ns).withName(victim).get();
            assertThat(after.getMetadata().getUid()).as("the same pod (a container restart)").isEqualTo(before.getMetadata().getUid());
            assertThat(restarts(after)).isEqualTo(restartsBefore + 1);
            assertThat(c.getStatus().getMembers()).allMatch(m -> Boolean.TRUE.equals(m.getReady()));
            // caught up: it serves a linearizable read of the latest acknowledged write
            try (QueenKv kv = kv(victim)) {
                assertThat(kv.put("e2e-after-crash", "k", 1, Lifetime.forever()).applied()).isTrue();
                assertThat(kv.get("e2e-after-crash", "k").found()).isTrue();
            }
            assertNoViolations();
        });
    }

    @Test
    @Order(60)
    void s6_deleteTheResource_everythingItOwnedIsGone() {
        scenario("6 delete", () -> {
            List<String> violations = load.verifyAll();
            System.out.println("[operator-e2e] load: " + load.summary());
            assertThat(violations).as("lost writes or reads that went back (%s)", load.summary()).isEmpty();
            assertThat(load.writes.get()).isGreaterThan(100);

            client.resources(QueenKvCluster.class).inNamespace(ns).withName(NAME).delete();
            await("everything the cluster owned to be gone").atMost(t(Duration.ofSeconds(90))).untilAsserted(() -> {
                assertThat(client.apps().statefulSets().inNamespace(ns).withName(NAME).get()).isNull();
                assertThat(client.services().inNamespace(ns).withName(NAME).get()).isNull();
                assertThat(client.services().inNamespace(ns).withName(NAME + "-peers").get()).isNull();
                assertThat(client.configMaps().inNamespace(ns).withName(NAME + "-config").get()).isNull();
                assertThat(client.secrets().inNamespace(ns).withName(NAME + "-tls").get()).isNull();
                assertThat(client.secrets().inNamespace(ns).withName(NAME + "-ca").get()).isNull();
                assertThat(client.policy().v1().podDisruptionBudget().inNamespace(ns).withName(NAME).get()).isNull();
                assertThat(pods()).isEmpty();
            });
            if (cluster instanceof LocalCluster local)
                await("every node process to stop").atMost(t(Duration.ofSeconds(60)))
                        .untilAsserted(() -> assertThat(local.kubelet().runningPods()).isEmpty());
            // README "Kubernetes": the claims stay (whenDeleted: Retain) until someone deletes them.
            assertThat(claims()).containsExactly("data-kv-0", "data-kv-1", "data-kv-2");
        });
    }

    // ---- the resource ----------------------------------------------------------------------------------

    QueenKvCluster newCluster(int replicas) {
        QueenKvCluster c = new QueenKvCluster();
        c.setMetadata(new ObjectMetaBuilder().withName(NAME).withNamespace(ns).build());
        QueenKvClusterSpec spec = new QueenKvClusterSpec();
        spec.setReplicas(replicas);
        spec.setImage(cluster.nodeImage());
        if (!tls) spec.setTls(new TlsSpec(TlsMode.Disabled));
        c.setSpec(spec);
        return c;
    }

    QueenKvCluster current() {
        return client.resources(QueenKvCluster.class).inNamespace(ns).withName(NAME).get();
    }

    /** Edits the spec as a user would: on a conflict with the operator's status write, read again and retry. */
    /** The members other than the leader, as status lists them now, by id. */
    List<String> followers() {
        QueenKvCluster c = current();
        String leader = c.getStatus().getLeader();
        return c.getStatus().getMembers().stream().map(MemberStatus::getId).filter(id -> !id.equals(leader)).sorted().toList();
    }

    void edit(java.util.function.Consumer<QueenKvCluster> change) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            try {
                client.resources(QueenKvCluster.class).inNamespace(ns).withName(NAME).edit(c -> {
                    change.accept(c);
                    return c;
                });
                return true;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 409) throw e;
                return false;
            }
        });
    }

    /** Running, {@code members} members all ready, Available, not Degraded, not Progressing, observed the latest generation. */
    static boolean settled(QueenKvCluster c, int members) {
        QueenKvClusterStatus s = c.getStatus();
        return s != null && s.getPhase() == ClusterPhase.Running && s.getPendingOperation() == null
                && Objects.equals(s.getReplicas(), members) && Objects.equals(s.getReadyReplicas(), members)
                && s.getMembers() != null && s.getMembers().size() == members
                && s.getMembers().stream().allMatch(m -> Boolean.TRUE.equals(m.getReady()))
                && Objects.equals(s.getObservedGeneration(), c.getMetadata().getGeneration())
                && condition(c, QueenKvClusterStatus.AVAILABLE, "True")
                && condition(c, QueenKvClusterStatus.DEGRADED, "False")
                && condition(c, QueenKvClusterStatus.PROGRESSING, "False");
    }

    static boolean condition(QueenKvCluster c, String type, String status) {
        return c.getStatus() != null && conditionIs(c.getStatus(), type, status);
    }

    static boolean conditionIs(QueenKvClusterStatus s, String type, String status) {
        return s.getConditions() != null && s.getConditions().stream().anyMatch(k -> type.equals(k.getType()) && status.equals(k.getStatus()));
    }

    static String reason(QueenKvClusterStatus s, String type) {
        return s.getConditions().stream().filter(k -> type.equals(k.getType())).map(Condition::getReason).findFirst().orElse("");
    }

    /** A wait's timeout, longer where the cluster is slower (see {@link ClusterUnderTest#slowness}). */
    Duration t(Duration d) {
        return Duration.ofMillis((long) (d.toMillis() * cluster.slowness()));
    }

    QueenKvCluster awaitCluster(String what, Duration base, Predicate<QueenKvCluster> done) {
        Duration timeout = t(base);
        try {
            return await(what).atMost(timeout).pollInterval(Duration.ofMillis(200)).until(this::current, k -> k != null && done.test(k));
        } catch (ConditionTimeoutException e) {
            QueenKvCluster c = current();
            throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what + "; status now:\n"
                    + (c == null ? "(no resource)" : Serialization.asYaml(c.getStatus())), e);
        }
    }

    List<QueenKvClusterStatus> since(int mark) {
        return List.copyOf(statuses.subList(Math.min(mark, statuses.size()), statuses.size()));
    }

    /** The recorded operations in the order they were recorded ({@code "ScaleUp n3"}). */
    static List<String> operations(List<QueenKvClusterStatus> seen) {
        List<String> ops = new ArrayList<>();
        for (QueenKvClusterStatus s : seen) {
            PendingOperation op = s.getPendingOperation();
            if (op == null) continue;
            String o = op.getType() + " " + op.getMember();
            if (ops.isEmpty() || !ops.get(ops.size() - 1).equals(o)) ops.add(o);
        }
        return ops;
    }

    /** {@code status.replicas} as it moved (consecutive duplicates dropped). */
    static List<Integer> replicaSteps(List<QueenKvClusterStatus> seen) {
        List<Integer> steps = new ArrayList<>();
        for (QueenKvClusterStatus s : seen)
            if (s.getReplicas() != null && (steps.isEmpty() || !steps.get(steps.size() - 1).equals(s.getReplicas()))) steps.add(s.getReplicas());
        return steps;
    }

    // ---- pods, claims, nodes ----------------------------------------------------------------------------

    List<Pod> podList() {
        return client.pods().inNamespace(ns).withLabels(Labels.selector(NAME)).list().getItems().stream()
                .sorted(Comparator.comparing(p -> p.getMetadata().getName())).toList();
    }

    List<String> pods() {
        return podList().stream().map(p -> p.getMetadata().getName()).toList();
    }

    List<String> readyPods() {
        return podList().stream().filter(OperatorScenarios::ready).map(p -> p.getMetadata().getName()).toList();
    }

    static boolean ready(Pod p) {
        return p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream().anyMatch(k -> "Ready".equals(k.getType()) && "True".equals(k.getStatus()));
    }

    static int restarts(Pod p) {
        return p.getStatus() == null || p.getStatus().getContainerStatuses() == null || p.getStatus().getContainerStatuses().isEmpty() ? 0
                : p.getStatus().getContainerStatuses().get(0).getRestartCount();
    }

    Map<String, String> podUids() {
        return podList().stream().collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getUid()));
    }

    /** Pod → uid and restart count. */
    Map<String, String> podIdentities() {
        return podList().stream().collect(Collectors.toMap(p -> p.getMetadata().getName(),
                p -> p.getMetadata().getUid() + "/restarts=" + restarts(p)));
    }

    List<String> claims() {
        return client.persistentVolumeClaims().inNamespace(ns).list().getItems().stream().map(c -> c.getMetadata().getName())
                .filter(n -> n.startsWith("data-" + NAME + "-")).sorted().toList();
    }

    /** What the client Service routes to: its ready pods (a new SDK client when that set changes). */
    List<String> serviceEndpoints() {
        Service svc = client.services().inNamespace(ns).withName(NAME).get();
        if (svc == null || svc.getSpec().getSelector() == null) return List.of();
        return client.pods().inNamespace(ns).withLabels(svc.getSpec().getSelector()).list().getItems().stream()
                .filter(OperatorScenarios::ready).map(p -> p.getMetadata().getName()).sorted().map(this::url).toList();
    }

    /** With TLS the pod's DNS name (as clients in the cluster call it; {@link PodTunnel} carries the bytes), else where it is reached. */
    String url(String pod) {
        if (tls) return "https://" + Names.podHost(NAME, ns, LocalKubelet.ordinal(NAME, pod)) + ":" + Model.HTTP_PORT;
        return cluster.podUri(pod, Model.HTTP_PORT).toString();
    }

    /** An SDK client of one pod, trusting the cluster CA with TLS. */
    QueenKv kv(String pod) {
        return QueenKv.builder().endpoints(url(pod)).httpClient(podHttp()).build();
    }

    /** The HTTP client of every call this JVM makes to a pod: with TLS through the tunnel, trusting only {@code ca.crt} of {@code kv-tls}. */
    HttpClient podHttp() {
        HttpClient h = http;
        if (h != null) return h;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).version(HttpClient.Version.HTTP_1_1);
        if (tls) {
            io.fabric8.kubernetes.api.model.Secret secret = await("the TLS Secret " + NAME + "-tls").atMost(t(Duration.ofSeconds(60)))
                    .until(() -> client.secrets().inNamespace(ns).withName(NAME + "-tls").get(), java.util.Objects::nonNull);
            b.proxy(cluster.tunnel().proxy()).sslContext(ClusterTrust.trusting(TlsModel.text(secret, TlsModel.CA_CERT_KEY)));
        }
        http = h = b.build();
        return h;
    }

    /** {@code GET /api/v1/cluster} of one node. */
    JsonNode nodeView(String pod) throws Exception {
        HttpResponse<String> r = podHttp().send(HttpRequest.newBuilder(URI.create(url(pod) + "/api/v1/cluster")).timeout(Duration.ofSeconds(5))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET /api/v1/cluster on %s: %s", pod, r.body()).isEqualTo(200);
        return json.readTree(r.body());
    }

    /** Each pod's view of the group as this test reads it (the operator's own reads may have failed where these work). */
    String nodeViews() {
        StringBuilder b = new StringBuilder("node views when it failed:\n");
        try {
            for (String pod : pods()) {
                try {
                    JsonNode v = nodeView(pod);
                    b.append("  ").append(pod).append(": ").append(v.path("role").asText()).append(", leader ").append(v.path("leaderId").asText())
                            .append(", term ").append(v.path("term").asLong()).append(", commit ").append(v.path("commitIndex").asLong())
                            .append(", applied ").append(v.path("appliedIndex").asLong()).append(", members ")
                            .append(v.path("members").findValuesAsText("id")).append('\n');
                } catch (Exception | AssertionError e) {
                    b.append("  ").append(pod).append(": no view: ").append(e.getMessage()).append('\n');
                }
            }
        } catch (RuntimeException e) {
            b.append("  (could not list the pods: ").append(e.getMessage()).append(")\n");
        }
        return b.toString();
    }

    void assertNoViolations() {
        if (load != null) assertThat(load.violations()).as("lost writes or reads that went back (%s)", load.summary()).isEmpty();
    }

    // ---- reporting ----------------------------------------------------------------------------------------

    interface Body {
        void run() throws Exception;
    }

    /** The first scenario that failed, with what it reported (null while none has). */
    private String firstFailure;

    private AssertionError failed(String name, AssertionError report) {
        firstFailure = name + " left it when it failed:\n" + report.getMessage();
        return report;
    }

    /**
     * Runs one scenario on the shared cluster. After a scenario failed, the later ones fail at once, each
     * carrying the first failure: they would only time out on the state it left (three minutes apiece)
     * and bury its cause under their own.
     */
    void scenario(String name, Body body) {
        if (firstFailure != null)
            throw new AssertionError("scenario " + name + " not run: the cluster the scenarios share is as scenario " + firstFailure);
        long start = System.nanoTime();
        String outcome = "failed";
        try {
            body.run();
            outcome = "passed";
        } catch (AssertionError | RuntimeException e) {
            throw failed(name, new AssertionError("scenario " + name + " on " + cluster.describe() + " failed: " + e.getMessage() + "\n"
                    + (load == null ? "" : "load: " + load.summary() + "\n") + nodeViews() + cluster.diagnostics(), e));
        } catch (Exception e) {
            throw failed(name, new AssertionError("scenario " + name + " failed: " + e + "\n" + nodeViews() + cluster.diagnostics(), e));
        } finally {
            String t = String.format("%s in %.1f s", outcome, (System.nanoTime() - start) / 1e9);
            timings.put(name, t);
            System.out.println("[operator-e2e] scenario " + name + ": " + t + (load == null ? "" : "; load: " + load.summary()));
        }
    }
}
