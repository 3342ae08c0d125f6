package io.queenkv.operator.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.queenkv.operator.crd.PodTemplateOverrides;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;
import io.queenkv.operator.crd.StorageSpec;

/**
 * The StatefulSet of nodes. Ordinal {@code i} is node {@code n<i>} on PVC {@code data-<c>-<i>}.
 * Pods start in parallel (the group needs a majority to form); {@code OnDelete} leaves restarts to
 * the operator, which rolls one pod at a time, followers first, the leader last after a hand-off.
 *
 * <p>Stopping: the node's own SIGTERM hook hands leadership to another member before it exits
 * (README "A cluster"), so the pre-stop hook only sleeps {@value Model#PRE_STOP_SLEEP_SECONDS}s to let
 * the client Service drop the pod before the node stops answering; the grace period leaves room for
 * the hand-off and a clean Raft close.
 */
public final class StatefulSetModel {
    private StatefulSetModel() {}

    /** The StatefulSet at its bootstrap size (creation). */
    public static StatefulSet build(QueenKvCluster c) {
        return build(c, Model.bootstrapReplicas(c));
    }

    /** The StatefulSet at {@code replicas} pods: the reconciler moves it one ordinal at a time. */
    public static StatefulSet build(QueenKvCluster c, int replicas) {
        String name = Model.name(c);
        return new StatefulSetBuilder()
                .withMetadata(Model.metadata(c, Names.statefulSet(name)))
                .withNewSpec()
                .withReplicas(replicas)
                .withServiceName(Names.peersService(name))
                .withPodManagementPolicy("Parallel")
                .withNewUpdateStrategy().withType("OnDelete").endUpdateStrategy()
                .withNewSelector().withMatchLabels(Labels.selector(name)).endSelector()
                .withTemplate(podTemplate(c))
                .withVolumeClaimTemplates(dataClaimTemplate(c))
                // Retain on scale: a shrink the operator did not make (kubectl scale, a stale GitOps sync)
                // must not delete the data of members still in the group; the operator deletes a claim
                // itself once the member's removal has committed. Retain on delete keeps the data of a
                // deleted QueenKvCluster until someone deletes the claims.
                .withNewPersistentVolumeClaimRetentionPolicy().withWhenDeleted("Retain").withWhenScaled("Retain")
                .endPersistentVolumeClaimRetentionPolicy()
                .endSpec()
                .build();
    }

    public static PodTemplateSpec podTemplate(QueenKvCluster c) {
        String name = Model.name(c);
        QueenKvClusterSpec spec = Model.spec(c);
        PodTemplateOverrides o = spec.getPodTemplate() == null ? new PodTemplateOverrides() : spec.getPodTemplate();

        Map<String, String> labels = new LinkedHashMap<>(Model.map(o.getLabels()));
        labels.putAll(Labels.of(name));
        Map<String, String> annotations = new LinkedHashMap<>(Model.map(o.getAnnotations()));
        annotations.put(Model.POD_TEMPLATE_HASH_ANNOTATION, PodTemplateHash.of(c));

        return new PodTemplateSpecBuilder()
                .withNewMetadata().withLabels(labels).withAnnotations(annotations).endMetadata()
                .withSpec(podSpec(c, o))
                .build();
    }

    private static PodSpec podSpec(QueenKvCluster c, PodTemplateOverrides o) {
        QueenKvClusterSpec spec = Model.spec(c);
        return new PodSpecBuilder()
                .withContainers(container(c))
                .withVolumes(volumes(c))
                .withTerminationGracePeriodSeconds(Model.TERMINATION_GRACE_SECONDS)
                .withEnableServiceLinks(false)
                .withAutomountServiceAccountToken(false)
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withRunAsUser(Model.UID)
                .withRunAsGroup(Model.UID)
                .withFsGroup(Model.UID)
                .withFsGroupChangePolicy("OnRootMismatch")
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                .withAffinity(o.getAffinity() != null ? o.getAffinity() : defaultAffinity(Model.name(c)))
                .withTolerations(new ArrayList<>(Model.list(o.getTolerations())))
                .withTopologySpreadConstraints(new ArrayList<>(Model.list(o.getTopologySpreadConstraints())))
                .withNodeSelector(new LinkedHashMap<>(Model.map(o.getNodeSelector())))
                .withPriorityClassName(o.getPriorityClassName())
                .build();
    }

    /** Prefer one node per host; a user's {@code podTemplate.affinity} replaces it. */
    static Affinity defaultAffinity(String cluster) {
        return new AffinityBuilder()
                .withNewPodAntiAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution()
                .withWeight(100)
                .withNewPodAffinityTerm()
                .withTopologyKey("kubernetes.io/hostname")
                .withNewLabelSelector().withMatchLabels(Labels.selector(cluster)).endLabelSelector()
                .endPodAffinityTerm()
                .endPreferredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity()
                .build();
    }

    static Container container(QueenKvCluster c) {
        QueenKvClusterSpec spec = Model.spec(c);
        return new ContainerBuilder()
                .withName(Model.CONTAINER)
                .withImage(spec.getImage())
                .withCommand("sh", "-c", NodeEnv.startScript(c))
                .withPorts(
                        new ContainerPortBuilder().withName(Model.HTTP_PORT_NAME).withContainerPort(Model.HTTP_PORT).withProtocol("TCP").build(),
                        new ContainerPortBuilder().withName(Model.RAFT_PORT_NAME).withContainerPort(Model.RAFT_PORT).withProtocol("TCP").build())
                .withEnv(NodeEnv.env(c))
                .withResources(spec.getResources())
                .withVolumeMounts(volumeMounts(spec))
                // Up to two minutes to start (JVM, Raft storage recovery), then the usual checks.
                .withStartupProbe(httpProbe(spec, "/healthz", 2, 2, 60))
                .withLivenessProbe(httpProbe(spec, "/healthz", 10, 5, 3))
                // /readyz: a member that knows a leader and has applied what the leader committed (a ReadIndex round, at most 2 s).
                .withReadinessProbe(httpProbe(spec, "/readyz", 5, 3, 2))
                .withNewLifecycle().withNewPreStop().withNewExec()
                .withCommand("sh", "-c", "sleep " + Model.PRE_STOP_SLEEP_SECONDS)
                .endExec().endPreStop().endLifecycle()
                .withNewSecurityContext()
                .withAllowPrivilegeEscalation(false)
                .withReadOnlyRootFilesystem(true)
                .withRunAsNonRoot(true)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .endSecurityContext()
                .build();
    }

    /** With TLS the HTTP port serves HTTPS only (the kubelet does not verify the certificate of a probe). */
    private static Probe httpProbe(QueenKvClusterSpec spec, String path, int periodSeconds, int timeoutSeconds, int failureThreshold) {
        return new ProbeBuilder()
                .withNewHttpGet().withPath(path).withPort(new IntOrString(Model.HTTP_PORT_NAME))
                .withScheme(TlsModel.enabled(spec) ? "HTTPS" : "HTTP").endHttpGet()
                .withPeriodSeconds(periodSeconds)
                .withTimeoutSeconds(timeoutSeconds)
                .withFailureThreshold(failureThreshold)
                .withSuccessThreshold(1)
                .build();
    }

    private static List<VolumeMount> volumeMounts(QueenKvClusterSpec spec) {
        List<VolumeMount> m = new ArrayList<>();
        m.add(new VolumeMountBuilder().withName(Model.DATA_VOLUME).withMountPath(Model.DATA_DIR).build());
        m.add(new VolumeMountBuilder().withName(Model.TMP_VOLUME).withMountPath("/tmp").build());
        if (hasTokens(spec))
            m.add(new VolumeMountBuilder().withName(Model.TOKENS_VOLUME).withMountPath(Model.TOKENS_DIR).withReadOnly(true).build());
        if (hasTls(spec))
            m.add(new VolumeMountBuilder().withName(Model.TLS_VOLUME).withMountPath(Model.TLS_DIR).withReadOnly(true).build());
        if (spec.getRestoreFrom() != null)
            m.add(new VolumeMountBuilder().withName(Model.RESTORE_VOLUME).withMountPath(Model.RESTORE_DIR).withReadOnly(true).build());
        return m;
    }

    private static List<Volume> volumes(QueenKvCluster c) {
        QueenKvClusterSpec spec = Model.spec(c);
        List<Volume> v = new ArrayList<>();
        // The root file system is read-only; the JVM and Jetty write only under /tmp.
        v.add(new VolumeBuilder().withName(Model.TMP_VOLUME).withNewEmptyDir().withSizeLimit(new Quantity("256Mi")).endEmptyDir().build());
        if (hasTokens(spec))
            v.add(new VolumeBuilder().withName(Model.TOKENS_VOLUME).withNewSecret()
                    .withSecretName(spec.getAuth().getTokensSecretRef().getName()).withDefaultMode(0440).endSecret().build());
        // Only ca.crt, tls.crt and tls.key: a user's Secret may hold more than the node needs.
        TlsModel.secretName(c).ifPresent(secret -> v.add(new VolumeBuilder().withName(Model.TLS_VOLUME).withNewSecret()
                .withSecretName(secret).withDefaultMode(0440)
                .addNewItem().withKey(TlsModel.CA_CERT_KEY).withPath(TlsModel.CA_CERT_KEY).endItem()
                .addNewItem().withKey(TlsModel.CERT_KEY).withPath(TlsModel.CERT_KEY).endItem()
                .addNewItem().withKey(TlsModel.KEY_KEY).withPath(TlsModel.KEY_KEY).endItem()
                .endSecret().build()));
        if (spec.getRestoreFrom() != null)
            v.add(new VolumeBuilder().withName(Model.RESTORE_VOLUME).withNewPersistentVolumeClaim()
                    .withClaimName(spec.getRestoreFrom().getClaimName()).withReadOnly(true).endPersistentVolumeClaim().build());
        return v;
    }

    static PersistentVolumeClaim dataClaimTemplate(QueenKvCluster c) {
        StorageSpec storage = Model.storage(Model.spec(c));
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName(Model.DATA_VOLUME).withLabels(Labels.of(Model.name(c))).endMetadata()
                .withSpec(readWriteOnce(storage))
                .build();
    }

    /** A ReadWriteOnce claim of {@code storage}'s size and class: each node's data, and the backups' claim. */
    static PersistentVolumeClaimSpec readWriteOnce(StorageSpec storage) {
        return new PersistentVolumeClaimSpecBuilder()
                .withAccessModes("ReadWriteOnce")
                .withStorageClassName(storage.getStorageClassName())
                .withNewResources().addToRequests("storage", new Quantity(storage.getSize())).endResources()
                .build();
    }

    private static boolean hasTokens(QueenKvClusterSpec spec) {
        return spec.getAuth() != null && spec.getAuth().getTokensSecretRef() != null;
    }

    private static boolean hasTls(QueenKvClusterSpec spec) {
        return TlsModel.enabled(spec);
    }
}
