package io.queenkv.e2e.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.queenkv.operator.crd.BackupSpec;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.MemberStatus;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterStatus;
import io.queenkv.operator.crd.RestoreSpec;
import io.queenkv.operator.crd.TlsMode;
import io.queenkv.operator.crd.TlsSpec;
import io.queenkv.operator.model.Model;

/**
 * The operator scenarios against a real control plane on this machine ({@link ControlPlaneCluster}),
 * plus what only a real StatefulSet controller, garbage collector and disruption controller can show:
 * a {@code kubectl scale} behind the operator's back, evictions (a drain) during a roll against the PDB,
 * and a pod's claim deleted under it. Skips when {@code e2e/control-plane/build.sh} has not built the
 * binaries or etcd is not installed.
 */
class ControlPlaneOperatorE2eTest extends OperatorScenarios {
    static final String DRAIN_OPTION = "-Dqueenkv.e2e.drained=1";

    @Override
    ClusterUnderTest open() {
        ControlPlane.Binaries binaries = ControlPlane.Binaries.locate();
        Assumptions.assumeTrue(binaries.missing() == null, binaries::missing);
        return new ControlPlaneCluster(binaries);
    }

    ControlPlaneCluster controlPlane() {
        return (ControlPlaneCluster) cluster;
    }

    /**
     * The operator's identity is the chart's ServiceAccount and nothing more: what the chart's Role does
     * not grant is refused (so a permission the operator needs and the chart lacks fails the scenarios).
     */
    @Test
    @Order(5)
    void s05_theOperatorHasOnlyTheChartsPermissions() {
        KubernetesClient operatorClient = controlPlane().operatorClient();
        assertThatThrownBy(() -> operatorClient.namespaces().list()).as("cluster-wide: the namespaced install grants nothing there")
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
        assertThatThrownBy(() -> operatorClient.configMaps().inNamespace(ControlPlaneCluster.OPERATOR_NAMESPACE).list())
                .as("a namespace it does not watch").isInstanceOfSatisfying(KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(403));
        assertThat(operatorClient.apps().statefulSets().inNamespace(ns).list().getItems()).as("its namespace").isNotNull();
    }

    /** The steps so far are Events on the resource, written with the chart's permissions (a refused write is only logged). */
    @Test
    @Order(25)
    void s25_theStepsAreEventsOnTheResource() {
        List<String> reasons = client.v1().events().inNamespace(ns).list().getItems().stream()
                .filter(e -> NAME.equals(e.getInvolvedObject().getName()) && "QueenKvCluster".equals(e.getInvolvedObject().getKind()))
                .map(io.fabric8.kubernetes.api.model.Event::getReason).toList();
        assertThat(reasons).as("events of %s", NAME).contains("Created", "ScalingUp", "ScalingDown");
    }

    /**
     * {@code kubectl scale --replicas=4} behind the operator's back: the operator puts its StatefulSet back
     * at 3, the extra pod never becomes a member, and its claim goes with it: the StatefulSet keeps it
     * ({@code whenScaled: Retain}), the operator deletes a claim past the StatefulSet that holds no member.
     */
    @Test
    @Order(51)
    void s51_kubectlScaleUpBehindTheOperatorsBack_undone() {
        scenario("51 kubectl scale up behind the operator's back", () -> {
            int mark = statuses.size();
            long generation = client.apps().statefulSets().inNamespace(ns).withName(NAME).get().getMetadata().getGeneration();
            controlPlane().controlPlane().kubectl("scale", "statefulset", NAME, "--replicas=4", "-n", ns).orThrow();
            await("the operator to put the StatefulSet back at 3 and kv-3 and its claim to be gone").atMost(t(Duration.ofSeconds(90)))
                    .untilAsserted(() -> {
                        var sts = client.apps().statefulSets().inNamespace(ns).withName(NAME).get();
                        assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
                        assertThat(sts.getMetadata().getGeneration()).as("scaled to 4, then back").isGreaterThanOrEqualTo(generation + 2);
                        assertThat(pods()).containsExactly("kv-0", "kv-1", "kv-2");
                        assertThat(claims()).containsExactly("data-kv-0", "data-kv-1", "data-kv-2");
                    });
            awaitCluster("3 ready members", STEP_TIMEOUT, k -> settled(k, 3));
            assertThat(since(mark)).as("no fourth member, ever").allMatch(st -> st.getMembers() == null
                    || st.getMembers().stream().map(MemberStatus::getId).allMatch(id -> Set.of("n0", "n1", "n2").contains(id)));
            assertNoViolations();
        });
    }

    /**
     * {@code kubectl scale --replicas=2} behind the operator's back: the operator puts its StatefulSet back
     * at 3 and member n2 keeps its claim (its Raft log), whatever the StatefulSet controller did meanwhile.
     * The StatefulSet keeps the claims of pods it scales away ({@code whenScaled: Retain}), so the member's
     * log survives whether the operator undoes the scale before the pod is gone or after.
     */
    @Test
    @Order(52)
    void s52_kubectlScaleDownBehindTheOperatorsBack_memberKeepsItsClaim() {
        scenario("52 kubectl scale down behind the operator's back", () -> {
            String claimUid = claim("data-kv-2").getMetadata().getUid();
            String podUid = client.pods().inNamespace(ns).withName("kv-2").get().getMetadata().getUid();
            controlPlane().controlPlane().kubectl("scale", "statefulset", NAME, "--replicas=2", "-n", ns).orThrow();
            await("the operator to put the StatefulSet back at 3").atMost(t(Duration.ofSeconds(60)))
                    .until(() -> client.apps().statefulSets().inNamespace(ns).withName(NAME).get().getSpec().getReplicas() == 3);
            // The StatefulSet controller may have deleted kv-2 meanwhile: wait for whatever pod kv-2 is then to be ready.
            await("kv-2 to be ready (again)").atMost(t(Duration.ofSeconds(90)))
                    .until(() -> readyPods().contains("kv-2") && claim("data-kv-2") != null);
            boolean replaced = !client.pods().inNamespace(ns).withName("kv-2").get().getMetadata().getUid().equals(podUid);
            System.out.println("[operator-e2e] scale down behind the operator's back: kv-2 " + (replaced ? "was replaced" : "stayed"));
            awaitCluster("3 ready members", STEP_TIMEOUT, k -> settled(k, 3));
            assertThat(claim("data-kv-2").getMetadata().getUid()).as("n2's claim (its data) survived").isEqualTo(claimUid);
            assertNoViolations();
        });
    }

    /**
     * A drain during a roll: each pod is evicted once, retried while the API server refuses (429) as
     * {@code kubectl drain} does. The PDB the operator set (maxUnavailable 1 of 3) must hold evictions back
     * while the roll has a pod down, so a quorum serves all along and the roll completes.
     */
    @Test
    @Order(53)
    void s53_drainDuringARoll_thePdbHoldsEvictionsBack() {
        scenario("53 drain during a roll", () -> {
            PodDisruptionBudget pdb = client.policy().v1().podDisruptionBudget().inNamespace(ns).withName(NAME).get();
            assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
            String hashBefore = current().getStatus().getPodTemplateHash();
            int mark = statuses.size();
            edit(c -> c.getSpec().setJvmOptions(List.of(ROLL_OPTION, DRAIN_OPTION)));
            awaitCluster("the roll to start", STEP_TIMEOUT, k -> isRolling(k.getStatus()));

            Set<String> evicted = new LinkedHashSet<>();
            List<String> refused = new ArrayList<>();
            try (KubernetesClient drainer = controlPlane().clientWithoutRetries()) {
                await("every pod evicted once (a drain, retrying refusals)").atMost(t(STEP_TIMEOUT)).pollInterval(Duration.ofMillis(250))
                        .until(() -> {
                            for (String pod : List.of("kv-0", "kv-1", "kv-2")) {
                                if (evicted.contains(pod) || drainer.pods().inNamespace(ns).withName(pod).get() == null) continue;
                                if (drainer.pods().inNamespace(ns).withName(pod).evict(new EvictionBuilder()
                                        .withNewMetadata().withName(pod).withNamespace(ns).endMetadata().build()))
                                    evicted.add(pod);
                                else
                                    refused.add(pod);
                            }
                            return evicted.size() == 3;
                        });
            }
            System.out.println("[operator-e2e] drain: evicted " + evicted + ", refused " + refused.size() + " times: " + refused);
            awaitCluster("the roll to finish after the drain", STEP_TIMEOUT, k -> settled(k, 3)
                    && !hashBefore.equals(k.getStatus().getPodTemplateHash()));
            assertThat(refused).as("evictions the PDB refused while a pod was down").isNotEmpty();
            // Available may drop for the moment a leader hands off (no leader seen); the PDB's promise is about pods.
            List<String> outages = since(mark).stream().filter(st -> !conditionIs(st, QueenKvClusterStatus.AVAILABLE, "True"))
                    .map(st -> st.getPhase() + " ready " + st.getReadyReplicas() + ": " + st.getConditions().stream()
                            .filter(k -> k.getType().equals(QueenKvClusterStatus.AVAILABLE) || k.getType().equals(QueenKvClusterStatus.DEGRADED))
                            .map(k -> k.getType() + " " + k.getReason() + " " + k.getMessage()).toList()).distinct().toList();
            System.out.println("[operator-e2e] drain: statuses without Available=True: " + outages);
            assertThat(since(mark)).as("never more than one of three members down (maxUnavailable 1); not Available: %s", outages)
                    .allMatch(st -> st.getReadyReplicas() == null || st.getReadyReplicas() >= 2);
            assertNoViolations();
        });
    }

    /**
     * The claim of a follower's pod deleted ({@code kubectl delete pvc}), then its pod: the claim stays while
     * the pod uses it (the claim protection finalizer), then goes; the StatefulSet controller makes the
     * pod and a new, empty claim, and the operator re-admits the member that lost its disk.
     */
    @Test
    @Order(54)
    void s54_deletedClaim_memberReadmittedOnANewVolume() {
        scenario("54 a pod's claim deleted", () -> {
            List<String> followers = followers();
            String victimId = followers.get(followers.size() - 1);
            String victim = NAME + "-" + victimId.substring(1);
            String claim = "data-" + victim;
            String claimUid = claim(claim).getMetadata().getUid();
            String incarnation = nodeView(victim).path("incarnation").asText();
            int mark = statuses.size();

            controlPlane().controlPlane().kubectl("delete", "pvc", claim, "-n", ns, "--wait=false").orThrow();
            await("the claim to stay, terminating, while its pod runs").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                    .until(() -> {
                        PersistentVolumeClaim c = claim(claim);
                        return c != null && c.getMetadata().getDeletionTimestamp() != null && readyPods().contains(victim);
                    });
            controlPlane().controlPlane().kubectl("delete", "pod", victim, "-n", ns, "--wait=false").orThrow();
            await("a new claim " + claim).atMost(t(Duration.ofSeconds(90))).until(() -> {
                PersistentVolumeClaim c = claim(claim);
                return c != null && !c.getMetadata().getUid().equals(claimUid);
            });
            awaitCluster(victimId + " back as a member", STEP_TIMEOUT, k -> settled(k, 3));
            assertThat(nodeView(victim).path("incarnation").asText()).as("%s came back as a new incarnation", victimId)
                    .isNotEqualTo(incarnation).isNotEmpty();
            assertThat(nodeView(victim).path("members").size()).isEqualTo(3);
            // Status shows it re-admitting only if a reconcile fell into that window (the unit tests pin the status itself).
            boolean shown = since(mark).stream().anyMatch(st -> st.getMembers() != null
                    && st.getMembers().stream().anyMatch(m -> m.getId().equals(victimId) && Boolean.TRUE.equals(m.getReadmitting())));
            System.out.println("[operator-e2e] lost claim: " + victimId + " re-admitted; status showed it re-admitting: " + shown);
            assertNoViolations();
        });
    }

    /**
     * Two operator replicas (an upgrade's overlap): the second waits for the chart's Lease while the first
     * holds it, takes over once the first stops, and carries on from the status the first left; nothing is
     * recorded or run twice.
     */
    @Test
    @Order(55)
    void s55_aSecondOperatorReplicaStandsByAndTakesOver() {
        scenario("55 a second operator replica", () -> {
            assertThat(leaseHolder()).isEqualTo("replica-a");
            controlPlane().startOperator("replica-b");
            await("replica-b to stand by").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                    .until(() -> "replica-a".equals(leaseHolder()));
            edit(c -> c.getSpec().setSettings(new KvSettings().maxValueBytes(SMALL_LIMIT).writeRate(5_000)));
            awaitCluster("replica-a to apply the settings", STEP_TIMEOUT, k -> settled(k, 3)
                    && k.getStatus().getSettings() != null && Integer.valueOf(5_000).equals(k.getStatus().getSettings().getWriteRate()));

            controlPlane().stopFirstOperator();
            await("replica-b to take the Lease").atMost(t(Duration.ofSeconds(60))).until(() -> "replica-b".equals(leaseHolder()));
            int rate = 5_001;
            edit(c -> c.getSpec().setSettings(new KvSettings().maxValueBytes(SMALL_LIMIT).writeRate(rate)));
            awaitCluster("replica-b to apply the next settings", STEP_TIMEOUT, k -> settled(k, 3)
                    && k.getStatus().getSettings() != null && Integer.valueOf(rate).equals(k.getStatus().getSettings().getWriteRate()));
            assertNoViolations();
        });
    }

    /**
     * spec.backup and spec.restoreFrom through the real controllers: the CronJob the operator made runs
     * once (a Job created from it, as {@code kubectl create job --from} does; the Job controller starts
     * its pod and the kubelet runs the node image's CLI), its file lands in the claim {@code kv-backups},
     * and a new cluster created from that file holds the rows written before, with their versions.
     */
    @Test
    @Order(56)
    void s56_aScheduledBackupRestoresIntoANewCluster() {
        scenario("56 a backup by the CronJob, restored into a new cluster", () -> {
            Map<String, Long> written = new TreeMap<>();
            for (int i = 0; i < 20; i++) {
                JsonNode r = kvCall(url(NAME + "-0"), "[{\"op\":\"put\",\"ns\":\"restore\",\"key\":\"r" + i
                        + "\",\"value\":" + i + ",\"forever\":true}]");
                written.put("r" + i, r.path("results").path(0).path("version").asLong());
            }
            edit(c -> c.getSpec().setBackup(new BackupSpec("0 3 * * *", 2, null)));
            await("the backup CronJob").atMost(t(Duration.ofSeconds(30)))
                    .until(() -> client.batch().v1().cronjobs().inNamespace(ns).withName(NAME + "-backup").get() != null);
            controlPlane().controlPlane().kubectl("create", "job", "--from=cronjob/" + NAME + "-backup", "backup-now", "-n", ns).orThrow();
            await("the backup Job to succeed").atMost(t(Duration.ofSeconds(120))).until(() -> {
                Job job = client.batch().v1().jobs().inNamespace(ns).withName("backup-now").get();
                return job != null && job.getStatus() != null && Integer.valueOf(1).equals(job.getStatus().getSucceeded());
            });
            PersistentVolumeClaim backups = claim(NAME + "-backups");
            assertThat(backups.getMetadata().getOwnerReferences()).as("the backups outlive the cluster").isNullOrEmpty();
            Path dir = controlPlane().kubelet().claimDir(NAME + "-backups").resolve(backups.getMetadata().getUid());
            List<Path> files;
            try (Stream<Path> list = Files.list(dir)) {
                files = list.filter(f -> f.getFileName().toString().endsWith(".backup")).toList();
            }
            assertThat(files).as("one backup in %s", dir).singleElement();

            QueenKvCluster restored = newCluster(1);
            restored.getMetadata().setName("restored");
            restored.getSpec().setTls(new TlsSpec(TlsMode.Disabled));
            restored.getSpec().setRestoreFrom(new RestoreSpec(NAME + "-backups", files.get(0).getFileName().toString()));
            client.resource(restored).create();
            await("restored to run").atMost(t(STEP_TIMEOUT)).until(
                    () -> client.resources(QueenKvCluster.class).inNamespace(ns).withName("restored").get(), k -> k != null && settled(k, 1));
            StringBuilder keys = new StringBuilder();
            written.keySet().forEach(k -> keys.append(keys.length() == 0 ? "" : ",").append('"').append(k).append('"'));
            JsonNode rows = kvCall(cluster.podUri("restored-0", Model.HTTP_PORT).toString(),
                    "[{\"op\":\"getMany\",\"ns\":\"restore\",\"keys\":[" + keys + "]}]").path("results").path(0).path("rows");
            Map<String, Long> read = new TreeMap<>();
            for (JsonNode row : rows) read.put(row.path("key").asText(), row.path("version").asLong());
            assertThat(read).as("every row of the backup, with its version").isEqualTo(written);

            client.resources(QueenKvCluster.class).inNamespace(ns).withName("restored").delete();
            edit(c -> c.getSpec().setBackup(null));
            await("the CronJob to go").atMost(t(Duration.ofSeconds(30)))
                    .until(() -> client.batch().v1().cronjobs().inNamespace(ns).withName(NAME + "-backup").get() == null);
            assertThat(claim(NAME + "-backups")).as("the backups stay").isNotNull();
            assertNoViolations();
        });
    }

    /**
     * A member named in {@code spec.removeMembers} below {@code spec.replicas} is replaced through the real
     * StatefulSet controller: the operator removes it from the group, deletes its claim and then its pod, the
     * controller makes the pod again with a new, empty claim, and the operator adds the new incarnation back;
     * the size stays 3 and no acknowledged write is lost.
     */
    @Test
    @Order(57)
    void s57_aMemberNamedInRemoveMembers_replacedOnANewClaim() {
        scenario("57 a member named in spec.removeMembers", () -> {
            String victimId = followers().get(0);
            int ordinal = Integer.parseInt(victimId.substring(1));
            String victim = NAME + "-" + ordinal;
            String claimUid = claim("data-" + victim).getMetadata().getUid();
            String incarnation = nodeView(victim).path("incarnation").asText();

            edit(c -> c.getSpec().setRemoveMembers(List.of(ordinal)));
            QueenKvCluster c = awaitCluster(victimId + " replaced", STEP_TIMEOUT, k -> settled(k, 3)
                    && k.getStatus().getReplacedMembers() != null && k.getStatus().getReplacedMembers().contains(ordinal));
            assertThat(c.getStatus().getMembers()).extracting(MemberStatus::getId).containsExactly("n0", "n1", "n2");
            assertThat(claim("data-" + victim).getMetadata().getUid()).as("%s on a new claim", victimId).isNotEqualTo(claimUid);
            assertThat(nodeView(victim).path("incarnation").asText()).as("%s came back as a new incarnation", victimId)
                    .isNotEqualTo(incarnation).isNotEmpty();
            assertThat(client.apps().statefulSets().inNamespace(ns).withName(NAME).get().getSpec().getReplicas()).isEqualTo(3);
            edit(k -> k.getSpec().setRemoveMembers(null));
            assertNoViolations();
        });
    }

    /** One {@code POST /api/v1/kv} on a node, answered 200. */
    private JsonNode kvCall(String base, String body) throws Exception {
        HttpClient http = base.startsWith("https") ? podHttp() : HttpClient.newHttpClient();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/kv")).timeout(Duration.ofSeconds(10))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("POST %s/api/v1/kv: %s", base, r.body()).isEqualTo(200);
        return new ObjectMapper().readTree(r.body());
    }

    String leaseHolder() {
        var lease = client.leases().inNamespace(ControlPlaneCluster.OPERATOR_NAMESPACE).withName(ControlPlaneCluster.RELEASE).get();
        return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }

    PersistentVolumeClaim claim(String name) {
        return client.persistentVolumeClaims().inNamespace(ns).withName(name).get();
    }

    static boolean isRolling(QueenKvClusterStatus s) {
        PendingOperation op = s == null ? null : s.getPendingOperation();
        return op != null && String.valueOf(op.getType()).startsWith("Roll");
    }
}
