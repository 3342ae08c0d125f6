package io.queenkv.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.utils.ResponseProvider;
import io.javaoperatorsdk.operator.Operator;
import io.queenkv.operator.crd.ClusterPhase;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.MemberStatus;
import io.queenkv.operator.crd.OperationStep;
import io.queenkv.operator.crd.OperationType;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;
import io.queenkv.operator.crd.QueenKvClusterStatus;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.NodeEnv;
import io.queenkv.operator.model.PodTemplateHash;
import io.queenkv.operator.model.TlsModel;
import io.queenkv.operator.crd.IssuerRef;
import io.queenkv.operator.crd.TlsSpec;
import io.queenkv.operator.tls.CertificateAuthority;
import io.queenkv.operator.tls.IssuedCertificate;
import io.queenkv.operator.tls.Pem;

/**
 * The real operator (JOSDK with {@link QueenKvReconciler}) against Fabric8's mock API server in CRUD mode,
 * with {@link FakeNodeAdmin} for the nodes and {@link PodSimulator} for the StatefulSet controller and the
 * kubelet. Server-side apply is off: the mock has no apply.
 */
@EnableKubernetesMockClient(crud = true)
class QueenKvReconcilerTest {
    static final String NS = "prod";
    static final String NAME = "kv";
    static final String IMAGE_2 = "ghcr.io/queenkv/node:0.2.0";
    /** The mock web server logs every request at INFO through java.util.logging. */
    static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    KubernetesClient client;
    KubernetesMockServer server;

    final List<String> events = new CopyOnWriteArrayList<>();
    /** Every status the cluster resource went through (from a watch). */
    final List<QueenKvClusterStatus> statuses = new CopyOnWriteArrayList<>();
    FakeNodeAdmin nodes;
    PodSimulator pods;
    Operator operator;
    QueenKvReconciler reconciler;
    Watch watch;
    final List<Watch> watches = new ArrayList<>();
    private String lastLogged;

    @BeforeEach
    void start() throws Exception {
        client.apiextensions().v1().customResourceDefinitions().load(crd().toFile()).create();
        nodes = new FakeNodeAdmin(events);
        pods = new PodSimulator(client, NS, nodes, events);
        watch = client.resources(QueenKvCluster.class).inNamespace(NS).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, QueenKvCluster c) {
                if (c.getStatus() == null) return;
                statuses.add(c.getStatus());
                var op = c.getStatus().getPendingOperation();
                if (op != null) logOnce("status " + op.getType() + " " + op.getMember() + " " + op.getStep());
            }

            @Override
            public void onClose(WatcherException cause) {}
        });
        // What the StatefulSet and the claims went through, in the same log as the admin calls.
        watches.add(client.apps().statefulSets().inNamespace(NS).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, StatefulSet sts) {
                logOnce("sts replicas " + sts.getSpec().getReplicas());
            }

            @Override
            public void onClose(WatcherException cause) {}
        }));
        watches.add(client.persistentVolumeClaims().inNamespace(NS).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, io.fabric8.kubernetes.api.model.PersistentVolumeClaim pvc) {
                if (action == Action.DELETED) events.add("pvc deleted " + pvc.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {}
        }));
        serveEvictions();
        startOperator();
    }

    /** The eviction subresource of every pod the tests create, answered by the {@link PodSimulator}. */
    private void serveEvictions() {
        for (int i = 0; i < 7; i++) {
            String pod = NAME + "-" + i;
            server.expect().post().withPath("/api/v1/namespaces/" + NS + "/pods/" + pod + "/eviction").andReply(new ResponseProvider<Object>() {
                private Headers headers = Headers.builder().build();
                private int code;

                @Override
                public int getStatusCode(RecordedRequest request) {
                    code = pods.evict(pod) ? 201 : 429;
                    return code;
                }

                @Override
                public Object getBody(RecordedRequest request) {
                    return new StatusBuilder().withStatus(code == 201 ? "Success" : "Failure").withCode(code)
                            .withReason(code == 201 ? null : "TooManyRequests").build();
                }

                @Override
                public Headers getHeaders() { return headers; }

                @Override
                public void setHeaders(Headers h) { headers = h; }
            }).always();
        }
    }

    @AfterEach
    void stop() throws Exception {
        watch.close();
        for (Watch w : watches) w.close();
        if (operator != null) operator.stop();
        pods.close();
    }

    private void startOperator() {
        reconciler = new QueenKvReconciler(nodes, new QueenKvReconciler.Timing(Duration.ofMillis(200), Duration.ofMillis(50),
                Duration.ofSeconds(60)), Clock.systemUTC());
        operator = new Operator(o -> OperatorMain.configure(o, client)
                .withSSABasedCreateUpdateMatchForDependentResources(false)
                .withUseSSAToPatchPrimaryResource(false)
                .withCloseClientOnStop(false));
        operator.register(reconciler, o -> o.settingNamespaces(NS));
        operator.start();
    }

    // ---------------------------------------------------------------------------------------------

    @Test
    void scheduledBackupsGetAClaimThatOutlivesTheCronJob() {
        create(3, spec -> spec.setBackup(new io.queenkv.operator.crd.BackupSpec("0 3 * * *", 4, null)));
        awaitRunning(3);
        var cronJob = await().atMost(Duration.ofSeconds(10)).until(
                () -> client.batch().v1().cronjobs().inNamespace(NS).withName("kv-backup").get(), java.util.Objects::nonNull);
        assertThat(cronJob.getSpec().getSchedule()).isEqualTo("0 3 * * *");
        assertThat(cronJob.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getContainers().get(0).getCommand().get(2))
                .contains("tail -n +5");
        assertThat(client.persistentVolumeClaims().inNamespace(NS).withName("kv-backups").get()).isNotNull();

        edit(c -> c.getSpec().getBackup().setSchedule("@hourly"));
        await().atMost(Duration.ofSeconds(10)).until(
                () -> "@hourly".equals(client.batch().v1().cronjobs().inNamespace(NS).withName("kv-backup").get().getSpec().getSchedule()));

        edit(c -> c.getSpec().setBackup(null));
        await().atMost(Duration.ofSeconds(10)).until(() -> client.batch().v1().cronjobs().inNamespace(NS).withName("kv-backup").get() == null);
        assertThat(client.persistentVolumeClaims().inNamespace(NS).withName("kv-backups").get()).as("the backups stay").isNotNull();
    }

    @Test
    void createsTheOwnedResourcesAndBecomesAvailable() {
        QueenKvCluster created = create(3);
        QueenKvCluster c = awaitRunning(3);

        QueenKvClusterStatus s = c.getStatus();
        assertThat(s.getBootstrapReplicas()).isEqualTo(3);
        assertThat(s.getReplicas()).isEqualTo(3);
        assertThat(s.getReadyReplicas()).isEqualTo(3);
        assertThat(s.getLeader()).isEqualTo("n0");
        assertThat(s.getObservedGeneration()).isEqualTo(c.getMetadata().getGeneration());
        assertThat(s.getSelector()).isEqualTo("app.kubernetes.io/name=queen-kv,app.kubernetes.io/instance=kv");
        assertThat(s.getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
        assertThat(s.getMembers()).allMatch(m -> Boolean.TRUE.equals(m.getReady()));
        assertThat(s.getMembers().get(0).getRole()).isEqualTo("leader");
        assertThat(s.getSettings().getMaxValueBytes()).isEqualTo(65536);
        assertThat(s.getCurrentImage()).isEqualTo(Fixtures.IMAGE);
        assertThat(s.getPodTemplateHash()).isEqualTo(PodTemplateHash.of(c.getSpec()));
        assertThat(s.getPendingOperation()).isNull();
        assertCondition(s, QueenKvClusterStatus.AVAILABLE, "True", QueenKvReconciler.REASON_QUORUM);
        assertCondition(s, QueenKvClusterStatus.PROGRESSING, "False", QueenKvReconciler.REASON_RECONCILED);
        assertCondition(s, QueenKvClusterStatus.DEGRADED, "False", QueenKvReconciler.REASON_HEALTHY);
        // What kstatus reads: Ready, not Reconciling, not Stalled.
        assertCondition(s, QueenKvClusterStatus.READY, "True", QueenKvReconciler.REASON_QUORUM);
        assertCondition(s, QueenKvClusterStatus.RECONCILING, "False", QueenKvReconciler.REASON_RECONCILED);
        assertCondition(s, QueenKvClusterStatus.STALLED, "False", QueenKvReconciler.REASON_HEALTHY);
        assertThat(statuses).anyMatch(st -> st.getPhase() == ClusterPhase.Creating
                && conditionIs(st, QueenKvClusterStatus.PROGRESSING, "True", QueenKvReconciler.REASON_CREATING)
                && conditionIs(st, QueenKvClusterStatus.RECONCILING, "True", QueenKvReconciler.REASON_CREATING)
                && conditionIs(st, QueenKvClusterStatus.READY, "False", QueenKvReconciler.REASON_CREATING));

        String uid = created.getMetadata().getUid();
        StatefulSet sts = client.apps().statefulSets().inNamespace(NS).withName(NAME).get();
        assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
        assertThat(sts.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
        Service peers = client.services().inNamespace(NS).withName("kv-peers").get();
        assertThat(peers.getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(peers.getSpec().getClusterIP()).isEqualTo("None");
        PodDisruptionBudget pdb = client.policy().v1().podDisruptionBudget().inNamespace(NS).withName(NAME).get();
        assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
        for (HasMetadata owned : owned()) {
            assertThat(owned).as(owned.getKind()).isNotNull();
            assertThat(owned.getMetadata().getOwnerReferences()).as(owned.getKind())
                    .anyMatch(r -> uid.equals(r.getUid()) && Boolean.TRUE.equals(r.getController()));
        }
        assertThat(client.configMaps().inNamespace(NS).withName("kv-config").get().getData())
                .containsEntry("bootstrapReplicas", "3");
    }

    @Test
    void noReconcileHotLoopInSteadyState() throws Exception {
        create(3);
        awaitRunning(3);
        java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong(-1);
        await("the last events to settle").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10))
                .until(() -> seen.getAndSet(reconciler.reconcileCount()) == reconciler.reconcileCount());
        long before = reconciler.reconcileCount();
        String resourceVersion = get().getMetadata().getResourceVersion();
        String stsVersion = client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getMetadata().getResourceVersion();
        await("3 s of steady state").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> reconciler.reconcileCount() - before <= 2);
        assertThat(get().getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
        assertThat(client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getMetadata().getResourceVersion())
                .isEqualTo(stsVersion);
    }

    @Test
    void scalesUpOneMemberAtATime() {
        create(3);
        awaitRunning(3);
        edit(c -> c.getSpec().setReplicas(5));
        QueenKvCluster c = awaitRunning(5);

        assertThat(calls("addMember")).containsExactly("addMember n3 via n0", "addMember n4 via n0");
        // n3 is added after its pod started, and n4's pod is only created once n3 was added and caught up.
        assertThat(indexOf("created pod kv-3")).isLessThan(indexOf("addMember n3"));
        assertThat(indexOf("addMember n3")).isLessThan(indexOf("created pod kv-4"));
        assertThat(indexOf("created pod kv-4")).isLessThan(indexOf("addMember n4"));
        assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2", "n3", "n4");
        assertThat(c.getStatus().getReplicas()).isEqualTo(5);
        assertThat(client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getReplicas()).isEqualTo(5);
        assertThat(client.policy().v1().podDisruptionBudget().inNamespace(NS).withName(NAME).get().getSpec().getMaxUnavailable().getIntVal())
                .isEqualTo(2);
        assertThat(statuses).anyMatch(st -> st.getPhase() == ClusterPhase.Scaling && st.getPendingOperation() != null
                && st.getPendingOperation().getType() == OperationType.ScaleUp && "n3".equals(st.getPendingOperation().getMember())
                && conditionIs(st, QueenKvClusterStatus.PROGRESSING, "True", QueenKvReconciler.REASON_SCALING_UP));
        assertThat(statuses).anyMatch(st -> st.getPendingOperation() != null && "n4".equals(st.getPendingOperation().getMember()));
        // Each step is an Event on the resource, as kubectl describe shows them.
        List<io.fabric8.kubernetes.api.model.Event> recorded = client.v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> NAME.equals(e.getInvolvedObject().getName()) && "QueenKvCluster".equals(e.getInvolvedObject().getKind())).toList();
        assertThat(recorded).extracting(io.fabric8.kubernetes.api.model.Event::getReason)
                .contains(QueenKvReconciler.REASON_CREATED, QueenKvReconciler.REASON_SCALING_UP);
        assertThat(recorded).filteredOn(e -> e.getReason().equals(QueenKvReconciler.REASON_SCALING_UP))
                .extracting(io.fabric8.kubernetes.api.model.Event::getMessage).anyMatch(m -> m.contains("added n3")).allMatch(m -> !m.isBlank());
        assertThat(recorded).allMatch(e -> e.getType().equals("Normal") && e.getInvolvedObject().getUid().equals(c.getMetadata().getUid()));
        // The bootstrap peer list never changes: a later member is added, not configured.
        assertThat(client.configMaps().inNamespace(NS).withName("kv-config").get().getData()).containsEntry("bootstrapReplicas", "3");
    }

    @Test
    void aScaleDownWaitsForAMemberThatStaysRatherThanRemoveAServingOne() {
        create(5);
        awaitRunning(5);
        nodes.lag(1, true); // n1 stays (lower ordinal) but does not serve
        edit(c -> c.getSpec().setReplicas(3));
        await("no removal while n1, which stays, is down").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                .until(() -> calls("removeMember").isEmpty() && conditionIs(get().getStatus(), QueenKvClusterStatus.PROGRESSING, "True", null)
                        && condition(get().getStatus(), QueenKvClusterStatus.PROGRESSING).getMessage().contains("waits until n1"));
        assertThat(member(get().getStatus(), "n1").getNotReadySince()).as("status says since when n1 has not served").isNotNull();
        assertThat(condition(get().getStatus(), QueenKvClusterStatus.PROGRESSING).getMessage())
                .as("a short outage is waited out (spec.replaceNotServingAfter, 10m by default)")
                .contains("n1 is replaced if it does not serve by").contains("(spec.replaceNotServingAfter 10m)");
        nodes.lag(1, false);
        QueenKvCluster c = awaitRunning(3);
        assertThat(calls("removeMember")).containsExactly("removeMember n4 via n0", "removeMember n3 via n0");
        assertThat(calls("addMember")).as("nothing replaced").isEmpty();
        assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getNotReadySince).containsOnlyNulls();
    }

    @Test
    void aScaleDownRemovesAMemberAtTheCutThatDoesNotServeFirstAndKeepsItsPodUntilTheHigherOneHasGone() {
        create(5);
        awaitRunning(5);
        nodes.lag(3, true); // n3 goes with the cut, does not serve; n4 serves
        edit(c -> c.getSpec().setReplicas(3));
        QueenKvCluster c = awaitRunning(3);

        // Nothing waits for n3, and the group never rests on it: it leaves first, while every serving member stays.
        assertThat(calls("removeMember")).containsExactly("removeMember n3 via n0", "removeMember n4 via n0");
        // The StatefulSet can only lose its highest pod: kv-4 goes first, then kv-3; each claim after its pod.
        assertThat(indexOf("removeMember n4")).isLessThan(indexOf("scaled down pod kv-4"));
        assertThat(indexOf("scaled down pod kv-4")).isLessThan(indexOf("scaled down pod kv-3"));
        assertThat(indexOf("scaled down pod kv-3")).isLessThan(indexOf("pvc deleted data-kv-3"));
        assertThat(indexOf("scaled down pod kv-4")).isLessThan(indexOf("pvc deleted data-kv-4"));
        assertThat(events).noneMatch(e -> e.startsWith("claim deleted with the pod"));
        assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
        assertThat(client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getReplicas()).isEqualTo(3);
        assertThat(client.persistentVolumeClaims().inNamespace(NS).list().getItems()).extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrder("data-kv-0", "data-kv-1", "data-kv-2");
    }

    @Test
    void aScaleDownReplacesAMemberThatStaysAndHasNotServedForTheSettingThenShrinks() {
        create(5, spec -> spec.setReplaceNotServingAfter("1s"));
        awaitRunning(5);
        nodes.lag(1, true); // n1 stays (lower ordinal), does not serve and does not come back by itself
        String since = await().atMost(Duration.ofSeconds(10)).until(() -> member(get().getStatus(), "n1").getNotReadySince(),
                java.util.Objects::nonNull);
        edit(c -> c.getSpec().setReplicas(3));
        // Its claim and pod go; the new, empty n1 serves (the fake's lag is per ordinal: lifted for the new incarnation).
        await().atMost(Duration.ofSeconds(20)).until(() -> events.contains("pvc deleted data-kv-1"));
        nodes.lag(1, false);
        QueenKvCluster c = awaitRunning(3);

        // n1 replaced first, one member at a time, then the shrink removes the highest ordinals from a group that serves.
        assertThat(calls("removeMember")).containsExactly("removeMember n1 via n0", "removeMember n4 via n0", "removeMember n3 via n0");
        assertThat(calls("addMember")).containsExactly("addMember n1 via n0");
        assertThat(indexOf("removeMember n1")).isLessThan(indexOf("status Replace n1 " + OperationStep.MemberRemoved));
        assertThat(indexOf("status Replace n1 " + OperationStep.MemberRemoved)).isLessThan(indexOf("pvc deleted data-kv-1"));
        assertThat(indexOf("pvc deleted data-kv-1")).isLessThan(indexOf("addMember n1"));
        assertThat(indexOf("addMember n1")).isLessThan(indexOf("removeMember n4"));
        // Why, as kubectl describe shows it: since when (kept from the first time n1 was seen not ready) and the setting.
        assertThat(client.v1().events().inNamespace(NS).list().getItems()).filteredOn(e -> QueenKvReconciler.REASON_REPLACING.equals(e.getReason()))
                .extracting(io.fabric8.kubernetes.api.model.Event::getMessage)
                .anyMatch(m -> m.contains("replacing n1 (not ready since " + since + ", longer than spec.replaceNotServingAfter 1s"));
        assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
        assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getNotReadySince).containsOnlyNulls();
        assertThat(c.getStatus().getReplacedMembers()).as("only what spec.removeMembers names").isNull();
        assertThat(client.persistentVolumeClaims().inNamespace(NS).list().getItems()).extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrder("data-kv-0", "data-kv-1", "data-kv-2");
    }

    @Test
    void aMemberNamedInRemoveMembersIsReplacedByAnEmptyOneBeforeTheShrink() {
        create(5);
        awaitRunning(5);
        String oldClaim = client.persistentVolumeClaims().inNamespace(NS).withName("data-kv-1").get().getMetadata().getUid();
        nodes.lag(1, true); // n1 does not serve (a bad disk): the user names it
        edit(c -> {
            c.getSpec().setReplicas(3);
            c.getSpec().setRemoveMembers(List.of(1));
        });
        // The new incarnation, on a new claim, serves.
        await().atMost(Duration.ofSeconds(20)).until(() -> events.contains("pvc deleted data-kv-1"));
        nodes.lag(1, false);
        QueenKvCluster c = awaitRunning(3);

        // n1 out of the group first, then its data, then the new n1 in, caught up; only then the shrink from the top.
        assertThat(calls("removeMember")).containsExactly("removeMember n1 via n0", "removeMember n4 via n0", "removeMember n3 via n0");
        assertThat(indexOf("removeMember n1")).isLessThan(indexOf("status Replace n1 " + OperationStep.MemberRemoved));
        assertThat(indexOf("status Replace n1 " + OperationStep.MemberRemoved)).isLessThan(indexOf("pvc deleted data-kv-1"));
        assertThat(indexOf("pvc deleted data-kv-1")).isLessThan(indexOf("pod gone kv-1"));
        assertThat(indexOf("pod gone kv-1")).isLessThan(indexOf("addMember n1"));
        assertThat(indexOf("addMember n1")).isLessThan(indexOf("removeMember n4"));
        assertThat(calls("addMember")).containsExactly("addMember n1 via n0");
        assertThat(client.persistentVolumeClaims().inNamespace(NS).withName("data-kv-1").get().getMetadata().getUid())
                .as("n1 came back on a new claim").isNotEqualTo(oldClaim);
        assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
        assertThat(c.getStatus().getReplacedMembers()).containsExactly(1);
        assertThat(statuses).anyMatch(st -> conditionIs(st, QueenKvClusterStatus.PROGRESSING, "True", QueenKvReconciler.REASON_REPLACING));
        // The claims of n0 and n2 stay; those of n3 and n4 went with the scale-down.
        assertThat(client.persistentVolumeClaims().inNamespace(NS).list().getItems()).extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrder("data-kv-0", "data-kv-1", "data-kv-2");

        // Named still, replaced once: nothing more. Dropped from the spec, dropped from status.
        edit(k -> k.getSpec().setRemoveMembers(null));
        await().atMost(Duration.ofSeconds(10)).until(() -> get().getStatus().getReplacedMembers() == null);
        awaitRunning(3);
        assertThat(calls("removeMember")).hasSize(3);
    }

    @Test
    void replacingTheLeaderHandsLeadershipOffFirstAndKeepsTheSize() {
        create(3);
        awaitRunning(3);
        String oldClaim = client.persistentVolumeClaims().inNamespace(NS).withName("data-kv-0").get().getMetadata().getUid();
        edit(c -> c.getSpec().setRemoveMembers(List.of(0)));
        await().atMost(Duration.ofSeconds(30)).until(() -> get().getStatus().getReplacedMembers() != null);
        QueenKvCluster c = awaitRunning(3);

        assertThat(indexOf("transferLeadership n0->")).isLessThan(indexOf("removeMember n0"));
        assertThat(calls("removeMember")).containsExactly("removeMember n0 via " + c.getStatus().getLeader());
        assertThat(indexOf("removeMember n0")).isLessThan(indexOf("pvc deleted data-kv-0"));
        assertThat(indexOf("pvc deleted data-kv-0")).isLessThan(indexOf("addMember n0"));
        assertThat(client.persistentVolumeClaims().inNamespace(NS).withName("data-kv-0").get().getMetadata().getUid()).isNotEqualTo(oldClaim);
        assertThat(c.getStatus().getReplacedMembers()).containsExactly(0);
        assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
        // The StatefulSet kept its size; no other member restarted.
        assertThat(events).noneMatch(e -> e.startsWith("sts replicas 2") || e.startsWith("scaled down pod"));
        assertThat(events).noneMatch(e -> e.equals("pod gone kv-1") || e.equals("pod gone kv-2"));
    }

    @Test
    void scalesDownMovingLeadershipOffTheHighestOrdinalFirst() {
        create(5);
        awaitRunning(5);
        nodes.forceLeader("n4");
        edit(c -> c.getSpec().setReplicas(3));
        QueenKvCluster c = awaitRunning(3);

        assertThat(calls("removeMember")).containsExactly("removeMember n4 via " + leaderAfterHandOff(), "removeMember n3 via " + leaderAfterHandOff());
        assertThat(indexOf("transferLeadership n4->")).isLessThan(indexOf("removeMember n4"));
        // Removed from the group first, then the StatefulSet shrinks by one, then the next member.
        assertThat(indexOf("removeMember n4")).isLessThan(indexOf("scaled down pod kv-4"));
        assertThat(indexOf("scaled down pod kv-4")).isLessThan(indexOf("removeMember n3"));
        assertThat(indexOf("removeMember n3")).isLessThan(indexOf("scaled down pod kv-3"));
        // Each removal is persisted before the StatefulSet shrinks; the claim goes only after its pod.
        assertThat(indexOf("status ScaleDown n4 " + OperationStep.MemberRemoved)).isLessThan(indexOf("sts replicas 4"));
        assertThat(indexOf("removeMember n4")).isLessThan(indexOf("status ScaleDown n4 " + OperationStep.MemberRemoved));
        assertThat(indexOf("scaled down pod kv-4")).isLessThan(indexOf("pvc deleted data-kv-4"));
        assertThat(indexOf("status ScaleDown n3 " + OperationStep.MemberRemoved)).isLessThan(indexOf("sts replicas 3"));
        assertThat(events).noneMatch(e -> e.startsWith("claim deleted with the pod"));
        assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
        assertThat(c.getStatus().getLeader()).isNotIn("n3", "n4");
        assertThat(client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getReplicas()).isEqualTo(3);
        assertThat(client.persistentVolumeClaims().inNamespace(NS).list().getItems()).extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrder("data-kv-0", "data-kv-1", "data-kv-2");
        assertThat(statuses).anyMatch(st -> st.getPhase() == ClusterPhase.Scaling
                && conditionIs(st, QueenKvClusterStatus.PROGRESSING, "True", QueenKvReconciler.REASON_SCALING_DOWN));
    }

    @Test
    void settingsGoLiveThroughTheLogWithoutRestarts() throws Exception {
        create(3);
        QueenKvCluster before = awaitRunning(3);
        long indexBefore = before.getStatus().getSettingsIndex();
        List<String> podUids = podUids();

        edit(c -> c.getSpec().setSettings(new KvSettings().maxValueBytes(32768).writeRate(50)));
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            QueenKvClusterStatus s = get().getStatus();
            return s.getSettings() != null && Integer.valueOf(32768).equals(s.getSettings().getMaxValueBytes())
                    && s.getObservedGeneration() == 2 && s.getPhase() == ClusterPhase.Running;
        });
        await("no second settings change").during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> calls("changeSettings").size() == 1);
        QueenKvClusterStatus s = get().getStatus();
        assertThat(calls("changeSettings")).containsExactly("changeSettings via n0");
        assertThat(s.getSettings().getWriteRate()).isEqualTo(50);
        assertThat(s.getSettings().getMaxKeysPerCall()).isEqualTo(1024);
        assertThat(s.getSettingsIndex()).isGreaterThan(indexBefore);
        assertThat(nodes.settings().getMaxValueBytes()).isEqualTo(32768);
        assertThat(podUids()).isEqualTo(podUids);
        assertThat(events).noneMatch(e -> e.startsWith("pod gone") || e.startsWith("stopped"));
    }

    @Test
    void imageChangeRollsOnePodAtATimeLeaderLast() {
        create(3);
        awaitRunning(3);
        edit(c -> c.getSpec().setImage(IMAGE_2));
        String hash = PodTemplateHash.of(get().getSpec());
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            QueenKvClusterStatus s = get().getStatus();
            return s.getPhase() == ClusterPhase.Running && IMAGE_2.equals(s.getCurrentImage()) && s.getReadyReplicas() == 3;
        });

        List<String> restarts = events.stream().filter(e -> e.startsWith("pod gone")).toList();
        assertThat(restarts).containsExactly("pod gone kv-2", "pod gone kv-1", "pod gone kv-0");
        // Through the Eviction API, so the PodDisruptionBudget has its say.
        assertThat(calls("evicted")).containsExactly("evicted kv-2", "evicted kv-1", "evicted kv-0");
        // One at a time: each pod is back (and its node started) before the next one goes.
        assertThat(indexOf("started n2", indexOf("pod gone kv-2"))).isLessThan(indexOf("pod gone kv-1"));
        assertThat(indexOf("started n1", indexOf("pod gone kv-1"))).isLessThan(indexOf("transferLeadership n0->"));
        assertThat(indexOf("transferLeadership n0->")).isLessThan(indexOf("pod gone kv-0"));
        assertThat(calls("transferLeadership")).hasSize(1);
        for (Pod p : client.pods().inNamespace(NS).list().getItems())
            assertThat(p.getMetadata().getAnnotations()).containsEntry(Model.POD_TEMPLATE_HASH_ANNOTATION, hash);
        QueenKvClusterStatus s = get().getStatus();
        assertThat(s.getPodTemplateHash()).isEqualTo(hash);
        assertThat(s.getLeader()).isNotEqualTo("n0");
        assertThat(statuses).anyMatch(st -> st.getPhase() == ClusterPhase.Rolling
                && conditionIs(st, QueenKvClusterStatus.PROGRESSING, "True", QueenKvReconciler.REASON_ROLLING));
        // Never a member lost beyond the one being restarted.
        assertThat(statuses).noneMatch(st -> conditionIs(st, QueenKvClusterStatus.DEGRADED, "True", null));
    }

    @Test
    void aRestartAnnotationRollsEveryPodOnceLeaderLast() {
        create(3);
        awaitRunning(3);
        String hashBefore = get().getStatus().getPodTemplateHash();
        List<String> uidsBefore = podUids();
        edit(c -> annotations(c).put(Model.RESTARTED_AT_ANNOTATION, "2026-12-01T10:00:00Z"));
        String want = PodTemplateHash.of(get());
        await("the restart to roll every pod").atMost(Duration.ofSeconds(30)).until(() -> want.equals(get().getStatus().getPodTemplateHash()));
        QueenKvCluster c = awaitRunning(3);
        assertThat(c.getStatus().getPodTemplateHash()).isNotEqualTo(hashBefore).isEqualTo(PodTemplateHash.of(c));
        assertThat(events.stream().filter(e -> e.startsWith("pod gone")).toList()).containsExactly("pod gone kv-2", "pod gone kv-1", "pod gone kv-0");
        assertThat(podUids()).doesNotContainAnyElementsOf(uidsBefore);
        assertThat(c.getSpec().getImage()).isEqualTo(Fixtures.IMAGE);

        // The same value again restarts nothing.
        int gone = (int) events.stream().filter(e -> e.startsWith("pod gone")).count();
        edit(k -> k.getSpec().setSettings(new KvSettings().writeRate(66)));
        awaitRunning(3);
        assertThat(events.stream().filter(e -> e.startsWith("pod gone")).count()).isEqualTo(gone);
    }

    @Test
    void whilePausedTheOperatorChangesNothingAndStatusSaysSo() {
        create(3);
        awaitRunning(3);
        edit(c -> annotations(c).put(Model.PAUSED_ANNOTATION, "true"));
        edit(c -> c.getSpec().setReplicas(5));
        await("paused: no member added, the StatefulSet as it was").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                .until(() -> calls("addMember").isEmpty()
                        && client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getReplicas() == 3
                        && conditionIs(get().getStatus(), QueenKvClusterStatus.PROGRESSING, "False", QueenKvReconciler.REASON_PAUSED));
        QueenKvCluster paused = get();
        assertThat(paused.getStatus().getObservedGeneration()).as("the spec asking for 5 is not done").isLessThan(paused.getMetadata().getGeneration());
        assertCondition(paused.getStatus(), QueenKvClusterStatus.AVAILABLE, "True", QueenKvReconciler.REASON_QUORUM);

        edit(c -> annotations(c).remove(Model.PAUSED_ANNOTATION));
        awaitRunning(5);
        assertThat(calls("addMember")).containsExactly("addMember n3 via n0", "addMember n4 via n0");
    }

    @Test
    void aRollChecksTheQuorumAgainImmediatelyBeforeTheRestart() {
        create(3);
        awaitRunning(3);
        // The roll of n2 was recorded while every member was ready; then the operator stopped, and n1 went
        // down (a drain, a crash) before the step that restarts n2 ran.
        operator.stop();
        operator = null;
        edit(c -> c.getSpec().setImage(IMAGE_2));
        String hash = PodTemplateHash.of(get().getSpec());
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            try {
                client.resources(QueenKvCluster.class).inNamespace(NS).withName(NAME).editStatus(c -> {
                    var op = new io.queenkv.operator.crd.PendingOperation(OperationType.Roll, "n2", 2, Instant.now().toString());
                    op.setTargetPodTemplateHash(hash);
                    op.setStep(OperationStep.Recorded);
                    c.getStatus().setPendingOperation(op);
                    return c;
                });
                return true;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                return false;
            }
        });
        nodes.lag(1, true);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.pods().inNamespace(NS).withName("kv-1").get().getStatus()
                .getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus())));
        startOperator();

        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs(get().getStatus(), QueenKvClusterStatus.PROGRESSING, "True", null)
                && condition(get().getStatus(), QueenKvClusterStatus.PROGRESSING).getMessage().contains("restarting n2 waits"));
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> events.stream().noneMatch(e -> e.startsWith("pod gone")));

        nodes.lag(1, false);
        await().atMost(Duration.ofSeconds(30)).until(() -> IMAGE_2.equals(get().getStatus().getCurrentImage()));
        awaitRunning(3);
        assertThat(calls("evicted")).first().isEqualTo("evicted kv-2");
    }

    @Test
    void aRestartTheDisruptionBudgetRefusesWaitsAndIsRetried() {
        create(3);
        awaitRunning(3);
        pods.refuseEvictions(true);
        edit(c -> c.getSpec().setImage(IMAGE_2));
        await().atMost(Duration.ofSeconds(20)).until(() -> events.contains("eviction refused kv-2"));
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> events.stream().noneMatch(e -> e.startsWith("pod gone")));
        assertThat(get().getStatus().getPendingOperation().getStep()).isEqualTo(OperationStep.Recorded);

        pods.refuseEvictions(false);
        await().atMost(Duration.ofSeconds(30)).until(() -> IMAGE_2.equals(get().getStatus().getCurrentImage()));
        awaitRunning(3);
        assertThat(calls("evicted")).containsExactly("evicted kv-2", "evicted kv-1", "evicted kv-0");
    }

    @Test
    void revertingABadImageSupersedesTheRollAndReplacesTheCrashLoopingPod() {
        create(3);
        awaitRunning(3);
        pods.breakImage(IMAGE_2);
        edit(c -> c.getSpec().setImage(IMAGE_2));
        await().atMost(Duration.ofSeconds(20)).until(() -> events.contains("crash-looping pod kv-2"));

        edit(c -> c.getSpec().setImage(Fixtures.IMAGE)); // the fix: back to the image that works
        QueenKvCluster c = awaitRunning(3);
        assertThat(c.getStatus().getCurrentImage()).isEqualTo(Fixtures.IMAGE);
        assertThat(c.getStatus().getPodTemplateHash()).isEqualTo(PodTemplateHash.of(c.getSpec()));
        // Only the broken member was restarted, twice: onto the bad image, then back; n1 and n0 never.
        assertThat(calls("evicted")).containsExactly("evicted kv-2", "evicted kv-2");
        assertThat(events).noneMatch(e -> e.equals("pod gone kv-1") || e.equals("pod gone kv-0"));
    }

    @Test
    void aScaleUpWhosePodNeverStartsFollowsTheSpecBackDown() {
        create(3);
        awaitRunning(3);
        pods.unschedulable("kv-3");
        edit(c -> c.getSpec().setReplicas(5));
        await().atMost(Duration.ofSeconds(20)).until(() -> events.contains("pending pod kv-3"));

        edit(c -> c.getSpec().setReplicas(3));
        awaitRunning(3);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.apps().statefulSets().inNamespace(NS).withName(NAME).get()
                .getSpec().getReplicas() == 3 && client.pods().inNamespace(NS).withName("kv-3").get() == null);
        assertThat(calls("addMember")).isEmpty();
        assertThat(calls("removeMember")).isEmpty();
    }

    @Test
    void operatorRestartMidScaleResumesTheRecordedStep() throws Exception {
        create(3);
        awaitRunning(3);
        nodes.lag(3, true); // n3 will not catch up while the first operator runs
        edit(c -> c.getSpec().setReplicas(5));
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            var op = get().getStatus().getPendingOperation();
            return op != null && "n3".equals(op.getMember()) && op.getStep() == OperationStep.MemberAdded;
        });
        operator.stop();
        operator = null;

        startOperator();
        await("the restarted operator to keep the recorded step").during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> get().getStatus().getPendingOperation() != null && "n3".equals(get().getStatus().getPendingOperation().getMember()));
        nodes.lag(3, false);
        awaitRunning(5);
        assertThat(calls("addMember")).containsExactly("addMember n3 via n0", "addMember n4 via n0");
    }

    @Test
    void aLostMemberIsDegradedAndRecovers() {
        create(3);
        awaitRunning(3);

        nodes.lag(1, true);
        QueenKvClusterStatus s = await().atMost(Duration.ofSeconds(20))
                .until(() -> get().getStatus(), st -> conditionIs(st, QueenKvClusterStatus.DEGRADED, "True", QueenKvReconciler.REASON_MEMBER_NOT_READY));
        assertThat(s.getPhase()).isEqualTo(ClusterPhase.Degraded);
        assertThat(condition(s, QueenKvClusterStatus.DEGRADED).getMessage()).contains("n1");
        assertCondition(s, QueenKvClusterStatus.AVAILABLE, "True", QueenKvReconciler.REASON_QUORUM);
        // Not ready while a member is lost, but not stalled: a pod that comes back heals it.
        assertCondition(s, QueenKvClusterStatus.READY, "False", QueenKvReconciler.REASON_MEMBER_NOT_READY);
        assertCondition(s, QueenKvClusterStatus.STALLED, "False", QueenKvReconciler.REASON_MEMBER_NOT_READY);
        assertThat(s.getReadyReplicas()).isEqualTo(2);

        pods.holdNotReady("kv-2", true);
        s = await().atMost(Duration.ofSeconds(20)).until(() -> get().getStatus(),
                st -> conditionIs(st, QueenKvClusterStatus.AVAILABLE, "False", QueenKvReconciler.REASON_NO_QUORUM));
        assertThat(condition(s, QueenKvClusterStatus.DEGRADED).getMessage()).contains("n1").contains("n2 (pod not ready)");

        nodes.lag(1, false);
        pods.holdNotReady("kv-2", false);
        s = awaitRunning(3).getStatus();
        assertCondition(s, QueenKvClusterStatus.DEGRADED, "False", QueenKvReconciler.REASON_HEALTHY);
        assertCondition(s, QueenKvClusterStatus.AVAILABLE, "True", QueenKvReconciler.REASON_QUORUM);
    }

    @Test
    void aShrinkTheOperatorDidNotMakeKeepsTheClaimsOfMembers() {
        create(3);
        awaitRunning(3);
        String claimUid = client.persistentVolumeClaims().inNamespace(NS).withName("data-kv-2").get().getMetadata().getUid();
        operator.stop();
        operator = null;

        // kubectl scale sts kv --replicas=2, or a GitOps tool syncing a stale StatefulSet.
        client.apps().statefulSets().inNamespace(NS).withName(NAME).edit(sts -> {
            sts.getSpec().setReplicas(2);
            return sts;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("scaled down pod kv-2"));
        startOperator();
        awaitRunning(3);

        assertThat(client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getReplicas()).isEqualTo(3);
        assertThat(client.persistentVolumeClaims().inNamespace(NS).withName("data-kv-2").get().getMetadata().getUid())
                .as("n2 comes back on its own disk").isEqualTo(claimUid);
        assertThat(calls("removeMember")).isEmpty();
    }

    @Test
    void aClaimLeftPastTheStatefulSetByNoMemberIsDeletedAndMembersClaimsStay() {
        create(3);
        awaitRunning(3);
        java.util.Map<String, String> uids = new java.util.TreeMap<>();
        for (int k = 0; k < 3; k++)
            uids.put("data-kv-" + k, client.persistentVolumeClaims().inNamespace(NS).withName("data-kv-" + k).get().getMetadata().getUid());
        // What a `kubectl scale --replicas=5` and back leaves under whenScaled: Retain: claims of pods that never joined.
        for (String orphan : List.of("data-kv-3", "data-kv-4"))
            client.persistentVolumeClaims().inNamespace(NS).resource(new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder()
                    .withNewMetadata().withName(orphan).withNamespace(NS).withLabels(io.queenkv.operator.model.Labels.of(NAME)).endMetadata()
                    .withNewSpec().withAccessModes("ReadWriteOnce").endSpec().build()).create();
        edit(c -> c.getSpec().setSettings(new KvSettings().writeRate(63))); // a reconcile

        await().atMost(Duration.ofSeconds(20)).until(() -> client.persistentVolumeClaims().inNamespace(NS).withName("data-kv-3").get() == null
                && client.persistentVolumeClaims().inNamespace(NS).withName("data-kv-4").get() == null);
        for (var e : uids.entrySet())
            assertThat(client.persistentVolumeClaims().inNamespace(NS).withName(e.getKey()).get().getMetadata().getUid())
                    .as(e.getKey() + " of a member").isEqualTo(e.getValue());
    }

    @Test
    void theStatefulSetNeverShrinksBelowTheHighestMember() {
        create(3);
        awaitRunning(3);
        // A stale status (a restored backup, a resource recreated from an old manifest) says two members.
        setStatusReplicas(2);
        edit(c -> c.getSpec().setSettings(new KvSettings().writeRate(61))); // a reconcile
        await().atMost(Duration.ofSeconds(20)).until(() -> get().getStatus().getSettings() != null
                && Integer.valueOf(61).equals(get().getStatus().getSettings().getWriteRate()));
        awaitRunning(3);
        assertThat(client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getReplicas()).isEqualTo(3);
        assertThat(events).noneMatch(e -> e.startsWith("scaled down pod") || e.startsWith("sts replicas 2"));
    }

    @Test
    void theStatefulSetNeverShrinksWithoutAVisibleLeader() {
        create(3);
        awaitRunning(3);
        for (int i = 0; i < 3; i++) nodes.fail(i, true);
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs(get().getStatus(), QueenKvClusterStatus.DEGRADED, "True",
                QueenKvReconciler.REASON_NO_LEADER));
        setStatusReplicas(2);
        long before = reconciler.reconcileCount();
        edit(c -> c.getSpec().setSettings(new KvSettings().writeRate(62))); // reconciles, with no leader to ask
        await().atMost(Duration.ofSeconds(20)).until(() -> reconciler.reconcileCount() >= before + 2);
        assertThat(get().getStatus().getObservedGeneration()).as("a spec not done yet (no leader to change settings)")
                .isLessThan(get().getMetadata().getGeneration());
        assertThat(client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getReplicas()).isEqualTo(3);
        assertThat(events).noneMatch(e -> e.startsWith("scaled down pod") || e.startsWith("sts replicas 2"));
    }

    @Test
    void availableStaysTrueWhileAQuorumServesThoughTheLeaderDoesNotAnswer() {
        create(3);
        awaitRunning(3);
        statuses.clear();
        nodes.slowAdmin(0, true); // the leader's admin API times out under load; the group serves on
        edit(c -> c.getSpec().setSettings(new KvSettings().writeRate(63))); // a reconcile while it does
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs(get().getStatus(), QueenKvClusterStatus.DEGRADED, "True",
                QueenKvReconciler.REASON_NO_LEADER));
        QueenKvClusterStatus s = get().getStatus();
        assertCondition(s, QueenKvClusterStatus.AVAILABLE, "True", QueenKvReconciler.REASON_QUORUM);
        assertThat(s.getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
        // The message says what each node answered, so a long spell without a leader names its cause.
        assertThat(Conditions.find(s.getConditions(), QueenKvClusterStatus.DEGRADED).orElseThrow().getMessage())
                .contains("n0 unreachable: n0: request timed out").contains("n1 follower, leader n0 (term ").contains("n2 follower, leader n0");

        nodes.slowAdmin(0, false);
        awaitRunning(3);
        assertThat(statuses).allMatch(st -> conditionIs(st, QueenKvClusterStatus.AVAILABLE, "True", null));
        assertThat(statuses).allMatch(st -> st.getMembers().size() == 3);
    }

    @Test
    void slowAnswersFromTwoFollowersTakeNoMemberAwayWhileTheirPodsAreReady() {
        create(3);
        awaitRunning(3);
        nodes.slowAdmin(1, true); // a leadership transfer, a restart next door: their admin API is slow for a moment
        nodes.slowAdmin(2, true);
        statuses.clear();
        edit(c -> c.getSpec().setSettings(new KvSettings().writeRate(65))); // a reconcile while they are
        await().atMost(Duration.ofSeconds(20)).until(() -> get().getStatus().getSettings() != null
                && Integer.valueOf(65).equals(get().getStatus().getSettings().getWriteRate()));
        await("statuses while the followers answer slowly").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> statuses.stream().allMatch(st -> conditionIs(st, QueenKvClusterStatus.AVAILABLE, "True", QueenKvReconciler.REASON_QUORUM)
                        && Integer.valueOf(3).equals(st.getReadyReplicas())
                        && conditionIs(st, QueenKvClusterStatus.DEGRADED, "False", QueenKvReconciler.REASON_HEALTHY)));
        assertThat(statuses).isNotEmpty();
        nodes.slowAdmin(1, false);
        nodes.slowAdmin(2, false);
        awaitRunning(3);
    }

    @Test
    void availableGoesFalseWhenTheQuorumIsGoneWithoutALeader() {
        create(3);
        awaitRunning(3);
        nodes.slowAdmin(0, true);
        pods.holdNotReady("kv-1", true);
        pods.holdNotReady("kv-2", true);
        edit(c -> c.getSpec().setSettings(new KvSettings().writeRate(64))); // a reconcile while it does
        await().atMost(Duration.ofSeconds(20)).until(() -> conditionIs(get().getStatus(), QueenKvClusterStatus.AVAILABLE, "False",
                QueenKvReconciler.REASON_NO_QUORUM));
        nodes.slowAdmin(0, false);
        pods.holdNotReady("kv-1", false);
        pods.holdNotReady("kv-2", false);
        awaitRunning(3);
    }

    @Test
    void scaleDownThatWouldLoseTheQuorumIsRefused() throws Exception {
        create(5);
        awaitRunning(5);
        nodes.fail(1, true);
        nodes.fail(2, true);
        edit(c -> c.getSpec().setReplicas(3));
        QueenKvClusterStatus s = await().atMost(Duration.ofSeconds(20)).until(() -> get().getStatus(),
                st -> conditionIs(st, QueenKvClusterStatus.DEGRADED, "True", QueenKvReconciler.REASON_WOULD_LOSE_QUORUM));
        assertThat(condition(s, QueenKvClusterStatus.DEGRADED).getMessage()).contains("removing n4");
        assertCondition(s, QueenKvClusterStatus.STALLED, "True", QueenKvReconciler.REASON_WOULD_LOSE_QUORUM);
        assertCondition(s, QueenKvClusterStatus.READY, "False", QueenKvReconciler.REASON_WOULD_LOSE_QUORUM);
        await("no removal while it would lose the quorum").during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> calls("removeMember").isEmpty() && get().getStatus().getPendingOperation() == null);
        // One Warning event, though every reconcile is refused again.
        assertThat(client.v1().events().inNamespace(NS).list().getItems()).filteredOn(e -> "Warning".equals(e.getType()))
                .extracting(io.fabric8.kubernetes.api.model.Event::getReason).containsExactly(QueenKvReconciler.REASON_WOULD_LOSE_QUORUM);

        nodes.fail(1, false);
        nodes.fail(2, false);
        awaitRunning(3);
        assertThat(calls("removeMember")).containsExactly("removeMember n4 via n0", "removeMember n3 via n0");
    }

    @Test
    void deletingTheClusterLeavesOwnedResourcesToTheGarbageCollector() throws Exception {
        QueenKvCluster created = create(3);
        awaitRunning(3);
        client.resource(get()).delete();
        await().atMost(Duration.ofSeconds(10)).until(() -> get() == null);
        // The mock API server has no garbage collector: every owned resource carries the controller owner
        // reference that makes a real one delete it with the cluster (no finalizer is needed).
        for (HasMetadata owned : owned()) {
            if (owned == null) continue;
            assertThat(owned.getMetadata().getOwnerReferences()).as(owned.getKind())
                    .anyMatch(r -> created.getMetadata().getUid().equals(r.getUid()) && Boolean.TRUE.equals(r.getBlockOwnerDeletion()));
        }
        assertThat(created.getMetadata().getFinalizers()).isNullOrEmpty();
        long reconciles = reconciler.reconcileCount();
        await("no reconcile of the deleted resource").during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> reconciler.reconcileCount() == reconciles);
    }


    @Test
    void theOperatorKeepsAClusterCaAndIssuesTheNodeCertificateOnce() {
        create(3);
        awaitRunning(3);
        Secret caSecret = client.secrets().inNamespace(NS).withName("kv-ca").get();
        Secret nodeSecret = client.secrets().inNamespace(NS).withName("kv-tls").get();
        assertThat(caSecret).isNotNull();
        assertThat(nodeSecret).isNotNull();
        CertificateAuthority ca = TlsModel.ca(caSecret).orElseThrow();
        X509Certificate cert = Pem.certificates(TlsModel.text(nodeSecret, TlsModel.CERT_KEY)).get(0);
        assertThat(ca.signed(cert)).isTrue();
        assertThat(TlsModel.text(nodeSecret, TlsModel.CA_CERT_KEY)).isEqualTo(ca.certificatePem());
        assertThat(TlsModel.subjectAlternativeNames(cert)).contains("*.kv-peers.prod.svc", "kv.prod.svc");
        String uid = get().getMetadata().getUid();
        for (Secret s : List.of(caSecret, nodeSecret))
            assertThat(s.getMetadata().getOwnerReferences()).anyMatch(r -> uid.equals(r.getUid()) && Boolean.TRUE.equals(r.getController()));
        // The pods mount the node Secret, never the CA's.
        var volumes = client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getTemplate().getSpec().getVolumes();
        assertThat(volumes).filteredOn(v -> v.getSecret() != null).extracting(v -> v.getSecret().getSecretName()).containsExactly("kv-tls");

        // Created once: later reconciles (a settings change) write neither Secret again.
        edit(c -> c.getSpec().setSettings(new KvSettings().writeRate(77)));
        await().atMost(Duration.ofSeconds(20)).until(() -> get().getStatus().getSettings() != null
                && Integer.valueOf(77).equals(get().getStatus().getSettings().getWriteRate()));
        assertThat(client.secrets().inNamespace(NS).withName("kv-ca").get().getMetadata().getResourceVersion())
                .isEqualTo(caSecret.getMetadata().getResourceVersion());
        assertThat(client.secrets().inNamespace(NS).withName("kv-tls").get().getMetadata().getResourceVersion())
                .isEqualTo(nodeSecret.getMetadata().getResourceVersion());
    }

    @Test
    void aNodeCertificateNearItsExpiryIsRenewedFromTheSameCa() {
        create(3);
        awaitRunning(3);
        Secret caSecret = client.secrets().inNamespace(NS).withName("kv-ca").get();
        CertificateAuthority ca = TlsModel.ca(caSecret).orElseThrow();
        // A certificate with 65 of its 365 days left: less than a third.
        Instant now = Instant.now();
        IssuedCertificate old = ca.issue("old", TlsModel.certificateNames(get()), now.minus(Duration.ofDays(300)), Duration.ofDays(365),
                new SecureRandom());
        client.resource(TlsModel.nodeSecret(get(), ca, old)).update();

        edit(c -> c.getSpec().setSettings(new KvSettings().writeRate(78))); // a reconcile
        X509Certificate renewed = await().atMost(Duration.ofSeconds(20)).until(() -> Pem.certificates(
                        TlsModel.text(client.secrets().inNamespace(NS).withName("kv-tls").get(), TlsModel.CERT_KEY)).get(0),
                cert -> !cert.equals(old.certificate()));
        assertThat(ca.signed(renewed)).isTrue();
        assertThat(renewed.getNotAfter().toInstant()).isAfter(old.certificate().getNotAfter().toInstant());
        assertThat(client.secrets().inNamespace(NS).withName("kv-ca").get().getMetadata().getResourceVersion())
                .as("the CA stays").isEqualTo(caSecret.getMetadata().getResourceVersion());
    }

    @Test
    void withAnIssuerCertManagerIsAskedForTheCertificate() {
        client.apiextensions().v1().customResourceDefinitions().resource(certificateCrd()).create();
        create(3, spec -> spec.setTls(new TlsSpec(new IssuerRef("cluster-ca", IssuerRef.Kind.ClusterIssuer))));
        awaitRunning(3);
        GenericKubernetesResource cert = client.genericKubernetesResources("cert-manager.io/v1", "Certificate").inNamespace(NS)
                .withName("kv-tls").get();
        assertThat(cert).isNotNull();
        assertThat(cert.getMetadata().getOwnerReferences()).anyMatch(r -> r.getUid().equals(get().getMetadata().getUid()));
        assertThat(cert.<String>get("spec", "secretName")).isEqualTo("kv-tls");
        assertThat(cert.<List<String>>get("spec", "dnsNames")).contains("*.kv-peers.prod.svc", "*.kv-peers.prod.svc.cluster.local", "kv.prod.svc");
        assertThat(cert.<List<String>>get("spec", "usages")).contains("server auth", "client auth");
        assertThat(cert.<String>get("spec", "privateKey", "encoding")).isEqualTo("PKCS8");
        assertThat(cert.<String>get("spec", "issuerRef", "name")).isEqualTo("cluster-ca");
        assertThat(cert.<String>get("spec", "issuerRef", "kind")).isEqualTo("ClusterIssuer");
        assertThat(client.secrets().inNamespace(NS).withName("kv-ca").get()).as("no CA of the operator's").isNull();
        var volumes = client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getTemplate().getSpec().getVolumes();
        assertThat(volumes).filteredOn(v -> v.getSecret() != null).extracting(v -> v.getSecret().getSecretName()).containsExactly("kv-tls");

        // An owned dependent, watched: a Certificate deleted by hand comes back, and goes once no issuer is named.
        String uid = cert.getMetadata().getUid();
        client.genericKubernetesResources("cert-manager.io/v1", "Certificate").inNamespace(NS).withName("kv-tls").delete();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            GenericKubernetesResource again = client.genericKubernetesResources("cert-manager.io/v1", "Certificate").inNamespace(NS)
                    .withName("kv-tls").get();
            return again != null && !again.getMetadata().getUid().equals(uid);
        });
        client.secrets().inNamespace(NS).withName("kv-tls").delete(); // what cert-manager wrote; the operator's CA issues its own now
        edit(c -> c.getSpec().setTls(null));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.genericKubernetesResources("cert-manager.io/v1", "Certificate")
                .inNamespace(NS).withName("kv-tls").get() == null && client.secrets().inNamespace(NS).withName("kv-ca").get() != null);
    }

    @Test
    void theClusterIsNewUntilItsBootstrapIsRecordedThenExistingWithoutARoll() throws Exception {
        create(3);
        QueenKvCluster c = awaitRunning(3);
        assertThat(statuses).filteredOn(st -> st.getPhase() == ClusterPhase.Creating).isNotEmpty()
                .allMatch(st -> st.getBootstrappedAt() == null);
        String at = c.getStatus().getBootstrappedAt();
        assertThat(at).isNotNull();
        await().atMost(Duration.ofSeconds(10)).until(() -> client.configMaps().inNamespace(NS).withName("kv-config").get().getData()
                .get(NodeEnv.INITIAL_CLUSTER_STATE).equals("existing"));
        var env = client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getTemplate().getSpec().getContainers().get(0).getEnv();
        assertThat(env).filteredOn(e -> e.getName().equals(NodeEnv.INITIAL_CLUSTER_STATE)).singleElement()
                .satisfies(e -> assertThat(e.getValueFrom().getConfigMapKeyRef().getName()).isEqualTo("kv-config"));
        assertThat(env).filteredOn(e -> e.getName().equals(NodeEnv.CLUSTER_ID)).singleElement()
                .satisfies(e -> assertThat(e.getValue()).isEqualTo(c.getMetadata().getUid()));
        assertThat(events).noneMatch(e -> e.startsWith("pod gone"));

        // Later reconciles (a scale-up) keep the timestamp and the state.
        edit(k -> k.getSpec().setReplicas(5));
        awaitRunning(5);
        assertThat(get().getStatus().getBootstrappedAt()).isEqualTo(at);
        assertThat(client.configMaps().inNamespace(NS).withName("kv-config").get().getData()).containsEntry(NodeEnv.INITIAL_CLUSTER_STATE, "existing");
    }

    @Test
    void aMemberReadmittedAfterALostDiskIsShownAndLeftToTheNode() {
        create(3);
        awaitRunning(3);

        // Removed from the configuration: not a missing member to add back, not a reason to scale.
        nodes.loseDisk("n2");
        QueenKvClusterStatus s = await().atMost(Duration.ofSeconds(20)).until(() -> get().getStatus(),
                st -> conditionIs(st, QueenKvClusterStatus.DEGRADED, "True", QueenKvReconciler.REASON_MEMBER_READMITTING));
        assertThat(condition(s, QueenKvClusterStatus.DEGRADED).getMessage()).contains("n2");
        assertThat(s.getPhase()).isEqualTo(ClusterPhase.Degraded);
        assertThat(s.getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
        assertThat(s.getMembers().get(2).getReadmitting()).isTrue();

        // Back as a learner: shown with its role; the two voters are the quorum.
        var n2 = io.queenkv.operator.model.Peers.node(get(), 2);
        nodes.readdAsLearner("n2", n2.raftAddress(), n2.httpAddress());
        s = await().atMost(Duration.ofSeconds(20)).until(() -> get().getStatus(), st -> st.getMembers().stream()
                .anyMatch(m -> m.getId().equals("n2") && "learner".equals(m.getRole()) && Boolean.TRUE.equals(m.getReadmitting())));
        assertCondition(s, QueenKvClusterStatus.AVAILABLE, "True", QueenKvReconciler.REASON_QUORUM);
        assertCondition(s, QueenKvClusterStatus.DEGRADED, "True", QueenKvReconciler.REASON_MEMBER_READMITTING);

        nodes.promote("n2");
        s = awaitRunning(3).getStatus();
        assertThat(s.getMembers()).allMatch(m -> m.getReadmitting() == null && !"learner".equals(m.getRole()));
        assertThat(calls("addMember")).isEmpty();
        assertThat(calls("removeMember")).isEmpty();
        assertThat(statuses).allMatch(st -> st.getPendingOperation() == null);
        assertThat(events).noneMatch(e -> e.startsWith("pod gone"));
    }

    @Test
    void aMemberLeftOutOfTheGroupIsAddedBackBeforeAnyNewOrdinal() {
        create(3);
        awaitRunning(3);

        nodes.dropOut("n1");
        QueenKvCluster c = await().atMost(Duration.ofSeconds(20)).until(this::get, k -> calls("addMember").size() == 1
                && k.getStatus().getPendingOperation() == null && k.getStatus().getMembers().size() == 3
                && k.getStatus().getPhase() == ClusterPhase.Running);
        assertThat(calls("addMember")).containsExactly("addMember n1 via n0");
        assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
        assertThat(c.getStatus().getReplicas()).isEqualTo(3);
        assertThat(statuses).noneMatch(st -> st.getPendingOperation() != null && !"n1".equals(st.getPendingOperation().getMember()));
        assertThat(client.apps().statefulSets().inNamespace(NS).withName(NAME).get().getSpec().getReplicas()).isEqualTo(3);
        assertThat(events).noneMatch(e -> e.startsWith("created pod kv-3") || e.startsWith("pod gone"));
    }

    // ---------------------------------------------------------------------------------------------

    static Path crd() {
        return Path.of(System.getProperty("queenkv.generatedCrd", "target/classes/META-INF/fabric8/queenkvclusters.queenkv.io-v1.yml"));
    }

    private QueenKvCluster create(int replicas) {
        return create(replicas, spec -> {});
    }

    private QueenKvCluster create(int replicas, java.util.function.Consumer<QueenKvClusterSpec> customize) {
        QueenKvCluster c = new QueenKvCluster();
        c.setMetadata(new ObjectMetaBuilder().withName(NAME).withNamespace(NS).build());
        QueenKvClusterSpec spec = new QueenKvClusterSpec();
        spec.setReplicas(replicas);
        spec.setImage(Fixtures.IMAGE);
        customize.accept(spec);
        c.setSpec(spec);
        return client.resources(QueenKvCluster.class).inNamespace(NS).resource(c).create();
    }

    /** cert-manager's Certificate kind, as far as the mock API server needs it (no schema). */
    private static CustomResourceDefinition certificateCrd() {
        return new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName("certificates.cert-manager.io").endMetadata()
                .withNewSpec().withGroup("cert-manager.io").withScope("Namespaced")
                .withNewNames().withKind("Certificate").withPlural("certificates").withSingular("certificate").endNames()
                .addNewVersion().withName("v1").withServed(true).withStorage(true)
                .withNewSchema().withNewOpenAPIV3Schema().withType("object").withXKubernetesPreserveUnknownFields(true).endOpenAPIV3Schema().endSchema()
                .endVersion()
                .endSpec().build();
    }

    private QueenKvCluster get() {
        return client.resources(QueenKvCluster.class).inNamespace(NS).withName(NAME).get();
    }

    /** Edits the spec as a user would: on a conflict with the operator's status write, read again and retry. */
    private void edit(java.util.function.Consumer<QueenKvCluster> change) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            try {
                client.resources(QueenKvCluster.class).inNamespace(NS).withName(NAME).edit(c -> {
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

    /** Overwrites status.replicas, as a stale copy of the resource would. */
    private void setStatusReplicas(int replicas) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            try {
                client.resources(QueenKvCluster.class).inNamespace(NS).withName(NAME).editStatus(c -> {
                    c.getStatus().setReplicas(replicas);
                    return c;
                });
                return true;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 409) throw e;
                return false;
            }
        });
    }

    /** Waits until the cluster runs {@code members} ready members with nothing in progress. */
    private QueenKvCluster awaitRunning(int members) {
        Predicate<QueenKvCluster> running = c -> {
            QueenKvClusterStatus s = c == null ? null : c.getStatus();
            return s != null && s.getPhase() == ClusterPhase.Running && s.getPendingOperation() == null
                    && s.getReadyReplicas() != null && s.getReadyReplicas() == members && s.getMembers().size() == members
                    && s.getObservedGeneration() != null && s.getObservedGeneration().equals(c.getMetadata().getGeneration())
                    && conditionIs(s, QueenKvClusterStatus.PROGRESSING, "False", null);
        };
        try {
            return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(this::get, running::test);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            QueenKvCluster c = get();
            throw new AssertionError("not running with " + members + " members; status:\n"
                    + (c == null ? "gone" : io.fabric8.kubernetes.client.utils.Serialization.asYaml(c.getStatus())) + "\nevents: " + events, e);
        }
    }

    /** Adds {@code event} unless it repeats the last one a watch logged (a status write that changed something else). */
    private synchronized void logOnce(String event) {
        if (event.equals(lastLogged)) return;
        lastLogged = event;
        events.add(event);
    }

    private List<HasMetadata> owned() {
        List<HasMetadata> l = new ArrayList<>();
        l.add(client.configMaps().inNamespace(NS).withName("kv-config").get());
        l.add(client.services().inNamespace(NS).withName("kv").get());
        l.add(client.services().inNamespace(NS).withName("kv-peers").get());
        l.add(client.apps().statefulSets().inNamespace(NS).withName(NAME).get());
        l.add(client.policy().v1().podDisruptionBudget().inNamespace(NS).withName(NAME).get());
        return l;
    }

    private static java.util.Map<String, String> annotations(QueenKvCluster c) {
        if (c.getMetadata().getAnnotations() == null) c.getMetadata().setAnnotations(new java.util.HashMap<>());
        return c.getMetadata().getAnnotations();
    }

    private List<String> podUids() {
        return client.pods().inNamespace(NS).list().getItems().stream().map(p -> p.getMetadata().getUid()).sorted().toList();
    }

    private List<String> calls(String prefix) {
        return events.stream().filter(e -> e.startsWith(prefix)).collect(Collectors.toList());
    }

    private int indexOf(String prefix) {
        return indexOf(prefix, 0);
    }

    private int indexOf(String prefix, int from) {
        for (int i = Math.max(0, from); i < events.size(); i++) if (events.get(i).startsWith(prefix)) return i;
        throw new AssertionError("no event " + prefix + " after " + from + " in " + events);
    }

    private String leaderAfterHandOff() {
        String t = calls("transferLeadership n4->").get(0);
        return t.substring(t.indexOf("->") + 2);
    }

    private static MemberStatus member(QueenKvClusterStatus s, String id) {
        return s.getMembers().stream().filter(m -> id.equals(m.getId())).findFirst().orElseThrow();
    }

    private static Condition condition(QueenKvClusterStatus s, String type) {
        return s.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElseThrow();
    }

    private static boolean conditionIs(QueenKvClusterStatus s, String type, String status, String reason) {
        return s != null && s.getConditions() != null && s.getConditions().stream().anyMatch(c -> type.equals(c.getType())
                && status.equals(c.getStatus()) && (reason == null || reason.equals(c.getReason())));
    }

    private static void assertCondition(QueenKvClusterStatus s, String type, String status, String reason) {
        Condition c = condition(s, type);
        assertThat(c.getStatus()).as(type + " " + c).isEqualTo(status);
        assertThat(c.getReason()).as(type + " " + c).isEqualTo(reason);
        assertThat(c.getLastTransitionTime()).isNotBlank();
    }
}
