package io.queenkv.operator.model;

import static io.queenkv.operator.Fixtures.IMAGE;
import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.queenkv.operator.crd.AuthSpec;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.PodTemplateOverrides;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.SecretKeyRef;
import io.queenkv.operator.crd.SecretRef;
import io.queenkv.operator.crd.StorageSpec;
import io.queenkv.operator.crd.TlsMode;
import io.queenkv.operator.crd.TlsSpec;
import io.queenkv.operator.crd.QueenKvClusterStatus;
import io.queenkv.operator.Fixtures;

class StatefulSetModelTest {
    static Container container(StatefulSet sts) {
        return sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    static PodSpec pod(StatefulSet sts) {
        return sts.getSpec().getTemplate().getSpec();
    }

    /** Literal env values by name (fieldRef entries map to "fieldRef:<path>"). */
    static Map<String, String> env(StatefulSet sts) {
        Map<String, String> m = new LinkedHashMap<>();
        for (EnvVar e : container(sts).getEnv())
            m.put(e.getName(), e.getValueFrom() != null && e.getValueFrom().getFieldRef() != null
                    ? "fieldRef:" + e.getValueFrom().getFieldRef().getFieldPath() : e.getValue());
        return m;
    }

    @Nested
    class Shape {
        final StatefulSet sts = StatefulSetModel.build(cluster("kv", "prod", 3));

        @Test
        void parallelOnDeleteBehindThePeerService() {
            assertThat(sts.getMetadata().getName()).isEqualTo("kv");
            assertThat(sts.getMetadata().getNamespace()).isEqualTo("prod");
            assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
            assertThat(sts.getSpec().getServiceName()).isEqualTo("kv-peers");
            assertThat(sts.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
            assertThat(sts.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
            assertThat(sts.getSpec().getUpdateStrategy().getRollingUpdate()).isNull();
            assertThat(sts.getSpec().getSelector().getMatchLabels()).containsExactlyInAnyOrderEntriesOf(Labels.selector("kv"));
            assertThat(sts.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(Labels.of("kv"));
        }

        @Test
        void replicasAreTheReconcilersChoice() {
            assertThat(StatefulSetModel.build(cluster(3), 4).getSpec().getReplicas()).isEqualTo(4);
        }

        @Test
        void containerRunsTheNodeThroughTheStartScript() {
            Container c = container(sts);
            assertThat(c.getName()).isEqualTo("node");
            assertThat(c.getImage()).isEqualTo(IMAGE);
            assertThat(c.getCommand()).hasSize(3).startsWith("sh", "-c");
            assertThat(c.getCommand().get(2))
                    .contains("export QUEEN_KV_NODE_ID=\"n${POD_NAME##*-}\"")
                    .contains("export QUEEN_KV_HOST=\"${POD_NAME}.kv-peers.${POD_NAMESPACE}.svc\"")
                    .contains("exec java \"$@\" $JAVA_OPTS -jar /app/queen-kv-node.jar");
        }

        @Test
        void ports() {
            assertThat(container(sts).getPorts()).extracting(ContainerPort::getName, ContainerPort::getContainerPort)
                    .containsExactly(tuple("http", 6632), tuple("raft", 6634));
        }

        @Test
        void probes() {
            Container c = container(sts);
            assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
            assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
            assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
            assertThat(c.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
            assertThat(c.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
            assertThat(c.getStartupProbe().getPeriodSeconds() * c.getStartupProbe().getFailureThreshold()).isGreaterThanOrEqualTo(60);
        }

        @Test
        void stoppingLeavesTimeForTheLeadershipHandOff() {
            assertThat(container(sts).getLifecycle().getPreStop().getExec().getCommand()).containsExactly("sh", "-c", "sleep 5");
            assertThat(pod(sts).getTerminationGracePeriodSeconds()).isEqualTo(60L);
        }

        @Test
        void env() {
            assertThat(StatefulSetModelTest.env(sts))
                    .containsEntry("POD_NAME", "fieldRef:metadata.name")
                    .containsEntry("POD_NAMESPACE", "fieldRef:metadata.namespace")
                    .containsEntry("QUEEN_KV_HTTP_PORT", "6632")
                    .containsEntry("QUEEN_KV_RAFT_PORT", "6634")
                    .containsEntry("QUEEN_KV_DATA_DIR", "/data")
                    .containsEntry("QUEEN_KV_PEERS", "n0=kv-0.kv-peers.prod.svc:6634:6632,"
                            + "n1=kv-1.kv-peers.prod.svc:6634:6632,n2=kv-2.kv-peers.prod.svc:6634:6632")
                    .containsEntry("JAVA_OPTS", "-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError")
                    .doesNotContainKeys("QUEEN_KV_TOKENS_FILE", "QUEEN_KV_MAX_VALUE_BYTES", "QUEEN_KV_NODE_ID", "QUEEN_KV_HOST");
            // POD_NAME is defined before anything that could refer to it.
            assertThat(container(sts).getEnv().get(0).getName()).isEqualTo("POD_NAME");
        }

        @Test
        void dataOnAClaimTemplateTmpOnAnEmptyDirAndTheOperatorsTlsSecret() {
            assertThat(container(sts).getVolumeMounts()).extracting(VolumeMount::getName, VolumeMount::getMountPath)
                    .containsExactly(tuple("data", "/data"), tuple("tmp", "/tmp"), tuple("tls", "/etc/queen-kv/tls"));
            assertThat(pod(sts).getVolumes()).extracting(Volume::getName).containsExactly("tmp", "tls");
            assertThat(pod(sts).getVolumes().get(0).getEmptyDir()).isNotNull();
            assertThat(sts.getSpec().getVolumeClaimTemplates()).singleElement().satisfies(pvc -> {
                assertThat(pvc.getMetadata().getName()).isEqualTo("data");
                assertThat(pvc.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
                assertThat(pvc.getSpec().getResources().getRequests()).containsEntry("storage", new Quantity("1Gi"));
                assertThat(pvc.getSpec().getStorageClassName()).isNull();
            });
            assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted()).isEqualTo("Retain");
            // Only the operator deletes a claim, after the member's removal committed.
            assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled()).isEqualTo("Retain");
        }

        @Test
        void securityContext() {
            var podSc = pod(sts).getSecurityContext();
            assertThat(podSc.getRunAsNonRoot()).isTrue();
            assertThat(podSc.getRunAsUser()).isEqualTo(10001L);
            assertThat(podSc.getFsGroup()).isEqualTo(10001L);
            assertThat(podSc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
            var sc = container(sts).getSecurityContext();
            assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
            assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
            assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
            assertThat(pod(sts).getAutomountServiceAccountToken()).isFalse();
            assertThat(pod(sts).getEnableServiceLinks()).isFalse();
        }

        @Test
        void podsCarryTheTemplateHash() {
            assertThat(sts.getSpec().getTemplate().getMetadata().getAnnotations())
                    .containsEntry(Model.POD_TEMPLATE_HASH_ANNOTATION, PodTemplateHash.of(cluster("kv", "prod", 3).getSpec()));
        }

        @Test
        void spreadsOverHostsByDefault() {
            var term = pod(sts).getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution().get(0);
            assertThat(term.getPodAffinityTerm().getTopologyKey()).isEqualTo("kubernetes.io/hostname");
            assertThat(term.getPodAffinityTerm().getLabelSelector().getMatchLabels()).containsExactlyInAnyOrderEntriesOf(Labels.selector("kv"));
        }
    }

    @ParameterizedTest(name = "{0} replicas")
    @ValueSource(ints = {1, 3, 5})
    void peersListTheFirstReplicasOrdinalsWithTheNamespaceInTheirDnsNames(int replicas) {
        String peers = env(StatefulSetModel.build(cluster("kv", "ns-" + replicas, replicas))).get("QUEEN_KV_PEERS");
        assertThat(peers.split(",")).hasSize(replicas);
        for (int i = 0; i < replicas; i++)
            assertThat(peers.split(",")[i]).isEqualTo("n" + i + "=kv-" + i + ".kv-peers.ns-" + replicas + ".svc:6634:6632");
    }

    @Test
    void settingsBecomeSeedEnv() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setSettings(new KvSettings().maxValueBytes(32768).maxKeysPerCall(2048).maxOpsPerCall(128)
                .maxBodyBytes(16_777_216L).writeRate(50).readRate(400));
        assertThat(env(StatefulSetModel.build(c)))
                .containsEntry("QUEEN_KV_MAX_VALUE_BYTES", "32768")
                .containsEntry("QUEEN_KV_MAX_KEYS_PER_CALL", "2048")
                .containsEntry("QUEEN_KV_MAX_OPS_PER_CALL", "128")
                .containsEntry("QUEEN_KV_MAX_BODY_BYTES", "16777216")
                .containsEntry("QUEEN_KV_WRITE_RATE", "50")
                .containsEntry("QUEEN_KV_READ_RATE", "400");
    }

    @Test
    void onlyTheSettingsGivenBecomeEnv() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setSettings(new KvSettings().writeRate(10));
        Map<String, String> env = env(StatefulSetModel.build(c));
        assertThat(env).containsEntry("QUEEN_KV_WRITE_RATE", "10");
        assertThat(env.keySet()).filteredOn(k -> k.startsWith("QUEEN_KV_MAX_") || k.equals("QUEEN_KV_READ_RATE")).isEmpty();
    }

    @Test
    void jvmOptionsAreAppendedToTheDefaults() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setJvmOptions(List.of("-Xmx1g", " -XX:+UseZGC "));
        assertThat(env(StatefulSetModel.build(c))).containsEntry("JAVA_OPTS",
                "-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError -Xmx1g -XX:+UseZGC");
    }

    @Test
    void userEnvComesLastAndCannotOverrideTheOperatorsVariables() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setEnv(List.of(new EnvVar("QUEEN_KV_SNAPSHOT_EVERY", "5000", null),
                new EnvVar("QUEEN_KV_PEERS", "n9=evil:1:2", null), new EnvVar("JAVA_OPTS", "-Xmx1m", null)));
        StatefulSet sts = StatefulSetModel.build(c);
        List<EnvVar> env = container(sts).getEnv();
        assertThat(env.get(env.size() - 1).getName()).isEqualTo("QUEEN_KV_SNAPSHOT_EVERY");
        assertThat(env).extracting(EnvVar::getName).doesNotHaveDuplicates();
        assertThat(env(sts)).containsEntry("QUEEN_KV_SNAPSHOT_EVERY", "5000")
                .containsEntry("QUEEN_KV_PEERS", Peers.initialPeers(c))
                .containsEntry("JAVA_OPTS", "-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError");
        assertThat(NodeEnv.ignoredUserEnv(c.getSpec())).containsExactly("QUEEN_KV_PEERS", "JAVA_OPTS");
    }

    @Test
    void resourcesAndImage() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setImage("registry.local/queen-kv:2");
        c.getSpec().setResources(new ResourceRequirementsBuilder().addToRequests("cpu", new Quantity("500m"))
                .addToLimits("memory", new Quantity("1Gi")).build());
        Container ct = container(StatefulSetModel.build(c));
        assertThat(ct.getImage()).isEqualTo("registry.local/queen-kv:2");
        assertThat(ct.getResources().getRequests()).containsEntry("cpu", new Quantity("500m"));
        assertThat(ct.getResources().getLimits()).containsEntry("memory", new Quantity("1Gi"));
    }

    @Test
    void storageSizeAndClass() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setStorage(new StorageSpec("20Gi", "fast-ssd"));
        assertThat(StatefulSetModel.build(c).getSpec().getVolumeClaimTemplates()).singleElement().satisfies(pvc -> {
            assertThat(pvc.getSpec().getResources().getRequests()).containsEntry("storage", new Quantity("20Gi"));
            assertThat(pvc.getSpec().getStorageClassName()).isEqualTo("fast-ssd");
        });
    }

    @Test
    void tokensSecretIsMountedAndNamedInTheEnv() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setAuth(new AuthSpec(new SecretKeyRef("kv-tokens", null), new SecretKeyRef("kv-admin", null)));
        StatefulSet sts = StatefulSetModel.build(c);
        assertThat(env(sts)).containsEntry("QUEEN_KV_TOKENS_FILE", "/etc/queen-kv/tokens/tokens");
        assertThat(container(sts).getVolumeMounts()).filteredOn(m -> m.getName().equals("tokens")).singleElement()
                .satisfies(m -> {
                    assertThat(m.getMountPath()).isEqualTo("/etc/queen-kv/tokens");
                    assertThat(m.getReadOnly()).isTrue();
                });
        assertThat(pod(sts).getVolumes()).filteredOn(v -> v.getName().equals("tokens")).singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("kv-tokens"));
        // The operator's own admin token is never mounted into the nodes.
        assertThat(pod(sts).getVolumes()).noneMatch(v -> v.getSecret() != null && v.getSecret().getSecretName().equals("kv-admin"));
    }

    @Test
    void tokensKeyIsHonoured() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setAuth(new AuthSpec(new SecretKeyRef("kv-tokens", "tokens.txt"), new SecretKeyRef("kv-admin", "t")));
        assertThat(env(StatefulSetModel.build(c))).containsEntry("QUEEN_KV_TOKENS_FILE", "/etc/queen-kv/tokens/tokens.txt");
    }

    @Test
    void aClusterCreatedFromABackupMountsItsClaimReadOnlyAndNamesTheFile() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setRestoreFrom(new io.queenkv.operator.crd.RestoreSpec("kv-backups", "old/kv-1.backup"));
        StatefulSet sts = StatefulSetModel.build(c);
        assertThat(env(sts)).containsEntry("QUEEN_KV_RESTORE_FROM", "/etc/queen-kv/restore/old/kv-1.backup");
        assertThat(container(sts).getVolumeMounts()).filteredOn(m -> m.getName().equals("restore")).singleElement()
                .satisfies(m -> {
                    assertThat(m.getMountPath()).isEqualTo("/etc/queen-kv/restore");
                    assertThat(m.getReadOnly()).isTrue();
                });
        assertThat(pod(sts).getVolumes()).filteredOn(v -> v.getName().equals("restore")).singleElement().satisfies(v -> {
            assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("kv-backups");
            assertThat(v.getPersistentVolumeClaim().getReadOnly()).isTrue();
        });
        assertThat(env(StatefulSetModel.build(cluster(3)))).doesNotContainKey("QUEEN_KV_RESTORE_FROM");
    }

    @Test
    void aUsersTlsSecretIsMountedReadOnlyWithOnlyTheNodesKeys() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setTls(new TlsSpec(new SecretRef("my-certs")));
        StatefulSet sts = StatefulSetModel.build(c);
        assertThat(container(sts).getVolumeMounts()).filteredOn(m -> m.getName().equals("tls")).singleElement()
                .satisfies(m -> {
                    assertThat(m.getMountPath()).isEqualTo("/etc/queen-kv/tls");
                    assertThat(m.getReadOnly()).isTrue();
                    assertThat(m.getSubPath()).as("subPath mounts never see a renewed Secret").isNull();
                });
        assertThat(pod(sts).getVolumes()).filteredOn(v -> v.getName().equals("tls")).singleElement().satisfies(v -> {
            assertThat(v.getSecret().getSecretName()).isEqualTo("my-certs");
            assertThat(v.getSecret().getItems()).extracting(i -> i.getKey()).containsExactly("ca.crt", "tls.crt", "tls.key");
        });
    }

    @Test
    void withTlsTheNodeGetsItsFilesAndTheProbesUseHttps() {
        StatefulSet sts = StatefulSetModel.build(cluster(3));
        assertThat(env(sts)).containsEntry("QUEEN_KV_TLS_CERT_FILE", "/etc/queen-kv/tls/tls.crt")
                .containsEntry("QUEEN_KV_TLS_KEY_FILE", "/etc/queen-kv/tls/tls.key")
                .containsEntry("QUEEN_KV_TLS_CA_FILE", "/etc/queen-kv/tls/ca.crt");
        assertThat(pod(sts).getVolumes()).filteredOn(v -> v.getName().equals("tls")).singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("kv-tls"));
        Container node = container(sts);
        for (var probe : List.of(node.getReadinessProbe(), node.getLivenessProbe(), node.getStartupProbe()))
            assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTPS");
        assertThat(node.getLifecycle().getPreStop().getExec().getCommand()).as("the pre-stop hook calls no HTTP")
                .noneMatch(a -> a.contains("http"));
    }

    @Test
    void withTlsDisabledNothingIsMountedAndTheProbesUseHttp() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setTls(new TlsSpec(TlsMode.Disabled));
        StatefulSet sts = StatefulSetModel.build(c);
        assertThat(env(sts)).doesNotContainKeys("QUEEN_KV_TLS_CERT_FILE", "QUEEN_KV_TLS_KEY_FILE", "QUEEN_KV_TLS_CA_FILE")
                .as("reachable at the pod IP all the same").containsEntry("QUEEN_KV_BIND_ADDRESS", "0.0.0.0");
        assertThat(pod(sts).getVolumes()).extracting(Volume::getName).doesNotContain("tls");
        assertThat(container(sts).getReadinessProbe().getHttpGet().getScheme()).isEqualTo("HTTP");
    }

    @Test
    void theClusterIdIsTheResourcesUid() {
        assertThat(env(StatefulSetModel.build(cluster(3)))).containsEntry("QUEEN_KV_CLUSTER_ID", Fixtures.UID);
    }

    @Test
    void theInitialClusterStateIsReadFromTheConfigMapSoItsFlipChangesNoTemplate() {
        QueenKvCluster c = cluster(3);
        StatefulSet creating = StatefulSetModel.build(c);
        EnvVar state = container(creating).getEnv().stream().filter(e -> e.getName().equals("QUEEN_KV_INITIAL_CLUSTER_STATE")).findFirst()
                .orElseThrow();
        assertThat(state.getValueFrom().getConfigMapKeyRef().getName()).isEqualTo("kv-config");
        assertThat(state.getValueFrom().getConfigMapKeyRef().getKey()).isEqualTo("QUEEN_KV_INITIAL_CLUSTER_STATE");
        assertThat(ConfigMapModel.build(c).getData()).containsEntry("QUEEN_KV_INITIAL_CLUSTER_STATE", "new");

        QueenKvClusterStatus bootstrapped = new QueenKvClusterStatus();
        bootstrapped.setBootstrapReplicas(3);
        bootstrapped.setBootstrappedAt("2026-12-01T10:00:00Z");
        c.setStatus(bootstrapped);
        assertThat(ConfigMapModel.build(c).getData()).containsEntry("QUEEN_KV_INITIAL_CLUSTER_STATE", "existing");
        assertThat(StatefulSetModel.build(c).getSpec().getTemplate()).isEqualTo(creating.getSpec().getTemplate());
    }

    @Test
    void podTemplateOverridesAreApplied() {
        QueenKvCluster c = cluster("kv", "prod", 3);
        PodTemplateOverrides o = new PodTemplateOverrides();
        o.setAffinity(new AffinityBuilder().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchExpression().withKey("zone").withOperator("In").withValues("a", "b")
                .endMatchExpression().endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
        o.setTolerations(List.of(new TolerationBuilder().withKey("dedicated").withOperator("Equal").withValue("kv")
                .withEffect("NoSchedule").build()));
        o.setTopologySpreadConstraints(List.of(new TopologySpreadConstraintBuilder().withMaxSkew(1)
                .withTopologyKey("topology.kubernetes.io/zone").withWhenUnsatisfiable("DoNotSchedule")
                .withNewLabelSelector().withMatchLabels(Labels.selector("kv")).endLabelSelector().build()));
        o.setNodeSelector(Map.of("disktype", "ssd"));
        o.setPriorityClassName("critical");
        o.setLabels(Map.of("team", "orders", Labels.INSTANCE, "hijack"));
        o.setAnnotations(Map.of("prometheus.io/scrape", "true", Model.POD_TEMPLATE_HASH_ANNOTATION, "forged"));
        c.getSpec().setPodTemplate(o);

        StatefulSet sts = StatefulSetModel.build(c);
        PodSpec pod = pod(sts);
        assertThat(pod.getAffinity()).isEqualTo(o.getAffinity());
        assertThat(pod.getAffinity().getPodAntiAffinity()).isNull();
        assertThat(pod.getTolerations()).isEqualTo(o.getTolerations());
        assertThat(pod.getTopologySpreadConstraints()).isEqualTo(o.getTopologySpreadConstraints());
        assertThat(pod.getNodeSelector()).containsExactlyEntriesOf(Map.of("disktype", "ssd"));
        assertThat(pod.getPriorityClassName()).isEqualTo("critical");
        var meta = sts.getSpec().getTemplate().getMetadata();
        assertThat(meta.getLabels()).containsEntry("team", "orders").containsEntry(Labels.INSTANCE, "kv");
        assertThat(meta.getAnnotations()).containsEntry("prometheus.io/scrape", "true")
                .containsEntry(Model.POD_TEMPLATE_HASH_ANNOTATION, PodTemplateHash.of(c.getSpec()));
    }

    @Test
    void theEnvironmentIsLiteralExceptPodIdentityAndInitialClusterState() {
        // A ConfigMap edit restarts nothing: the one value read from it is the one meant to differ between containers started at different times.
        QueenKvCluster c = cluster(5);
        c.getSpec().setAuth(new AuthSpec(new SecretKeyRef("t", null), new SecretKeyRef("a", null)));
        c.getSpec().setSettings(new KvSettings().readRate(9));
        List<EnvVar> env = container(StatefulSetModel.build(c)).getEnv();
        assertThat(env.stream().filter(e -> e.getValueFrom() != null).map(EnvVar::getName).collect(Collectors.toList()))
                .containsExactly("POD_NAME", "POD_NAMESPACE", "QUEEN_KV_INITIAL_CLUSTER_STATE");
        assertThat(container(StatefulSetModel.build(c)).getEnvFrom()).isNullOrEmpty();
    }
}
