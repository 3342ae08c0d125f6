package io.queenkv.operator.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.queenkv.operator.crd.AuthSpec;
import io.queenkv.operator.crd.BackupSpec;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;
import io.queenkv.operator.crd.StorageSpec;

/**
 * Scheduled backups ({@code spec.backup}): the claim {@code <c>-backups} and the CronJob
 * {@code <c>-backup}. Each run starts the node image with the CLI ({@code queen-kv backup}, which
 * checks the download before it renames it into place) against the client Service, then deletes
 * the oldest files beyond the retention. The claim carries no owner reference: backups outlive the
 * cluster they came from.
 */
public final class BackupModel {
    /** A CLI run is short: the first JIT tier and the serial collector start fastest (as {@code bin/queen-kv}). */
    static final String CLI_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.io.tmpdir=/tmp";

    private BackupModel() {}

    public static Optional<BackupSpec> spec(QueenKvCluster c) {
        return Optional.ofNullable(Model.spec(c).getBackup());
    }

    public static PersistentVolumeClaim claim(QueenKvCluster c, BackupSpec backup) {
        StorageSpec storage = backup.getStorage() != null ? backup.getStorage() : new StorageSpec();
        return new PersistentVolumeClaimBuilder()
                .withMetadata(new ObjectMetaBuilder().withName(Names.backupClaim(Model.name(c))).withNamespace(Model.namespace(c))
                        .withLabels(Labels.of(Model.name(c))).build())
                .withSpec(StatefulSetModel.readWriteOnce(storage))
                .build();
    }

    public static CronJob cronJob(QueenKvCluster c, BackupSpec backup) {
        QueenKvClusterSpec spec = Model.spec(c);
        return new CronJobBuilder()
                .withMetadata(Model.metadata(c, Names.backupCronJob(Model.name(c))))
                .withNewSpec()
                .withSchedule(backup.getSchedule())
                .withConcurrencyPolicy("Forbid") // two runs would race on the retention
                .withSuccessfulJobsHistoryLimit(3)
                .withFailedJobsHistoryLimit(3)
                .withNewJobTemplate().withNewSpec()
                .withBackoffLimit(2)
                .withNewTemplate()
                .withNewMetadata().withLabels(Labels.backup(Model.name(c))).endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withEnableServiceLinks(false)
                .withAutomountServiceAccountToken(false)
                .withNewSecurityContext()
                .withRunAsNonRoot(true).withRunAsUser(Model.UID).withRunAsGroup(Model.UID).withFsGroup(Model.UID)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                .addNewContainer()
                .withName("backup")
                .withImage(spec.getImage())
                .withCommand("sh", "-c", script(Model.name(c), retention(backup), Model.CLI_JAR, Model.BACKUPS_DIR))
                .withEnv(env(c))
                .withVolumeMounts(volumeMounts(spec))
                .withNewSecurityContext()
                .withAllowPrivilegeEscalation(false).withReadOnlyRootFilesystem(true).withRunAsNonRoot(true)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .endSecurityContext()
                .endContainer()
                .withVolumes(volumes(c))
                .endSpec()
                .endTemplate()
                .endSpec().endJobTemplate()
                .endSpec()
                .build();
    }

    static int retention(BackupSpec backup) {
        return backup.getRetention() != null ? backup.getRetention() : BackupSpec.DEFAULT_RETENTION;
    }

    /**
     * The job's shell script: one backup named {@code <cluster>-<UTC time to the nanosecond>.backup}
     * (names sort by time), then every file of this cluster beyond the newest {@code retention}
     * deleted. A failed backup exits non-zero before anything is deleted; the CLI leaves no file
     * under the final name unless the download checked out.
     */
    public static String script(String cluster, int retention, String cliJar, String dir) {
        return "set -eu\n"
                + "file=\"" + dir + "/" + cluster + "-$(date -u +%Y%m%dT%H%M%S.%NZ).backup\"\n"
                + "java " + CLI_JVM_OPTIONS + " -jar " + cliJar + " backup \"$file\"\n"
                + "ls -1 " + dir + "/" + cluster + "-*.backup | sort -r | tail -n +" + (retention + 1)
                + " | while IFS= read -r old; do rm -f -- \"$old\"; echo \"deleted $old (retention " + retention + ")\"; done\n";
    }

    private static List<EnvVar> env(QueenKvCluster c) {
        QueenKvClusterSpec spec = Model.spec(c);
        List<EnvVar> env = new ArrayList<>();
        String scheme = TlsModel.enabled(spec) ? "https" : "http";
        String endpoint = scheme + "://" + Names.clientService(Model.name(c)) + "." + Model.namespace(c) + ".svc:" + Model.HTTP_PORT;
        env.add(new EnvVar("QUEEN_KV_ENDPOINTS", endpoint, null));
        if (TlsModel.enabled(spec)) env.add(new EnvVar("QUEEN_KV_CA_FILE", Model.TLS_DIR + "/" + TlsModel.CA_CERT_KEY, null));
        AuthSpec auth = spec.getAuth();
        if (auth != null && auth.getAdminTokenSecretRef() != null)
            env.add(new EnvVarBuilder().withName("QUEEN_KV_TOKEN").withNewValueFrom().withNewSecretKeyRef()
                    .withName(auth.getAdminTokenSecretRef().getName()).withKey(auth.getAdminTokenSecretRef().keyOr(AuthSpec.DEFAULT_ADMIN_TOKEN_KEY))
                    .endSecretKeyRef().endValueFrom().build());
        return env;
    }

    private static List<VolumeMount> volumeMounts(QueenKvClusterSpec spec) {
        List<VolumeMount> m = new ArrayList<>();
        m.add(new VolumeMountBuilder().withName(Model.BACKUPS_VOLUME).withMountPath(Model.BACKUPS_DIR).build());
        m.add(new VolumeMountBuilder().withName(Model.TMP_VOLUME).withMountPath("/tmp").build());
        if (TlsModel.enabled(spec))
            m.add(new VolumeMountBuilder().withName(Model.TLS_VOLUME).withMountPath(Model.TLS_DIR).withReadOnly(true).build());
        return m;
    }

    private static List<Volume> volumes(QueenKvCluster c) {
        List<Volume> v = new ArrayList<>();
        v.add(new VolumeBuilder().withName(Model.BACKUPS_VOLUME).withNewPersistentVolumeClaim()
                .withClaimName(Names.backupClaim(Model.name(c))).endPersistentVolumeClaim().build());
        v.add(new VolumeBuilder().withName(Model.TMP_VOLUME).withNewEmptyDir().withSizeLimit(new Quantity("64Mi")).endEmptyDir().build());
        // The CA alone: the job proves the nodes' identity, it presents none of its own.
        TlsModel.secretName(c).ifPresent(secret -> v.add(new VolumeBuilder().withName(Model.TLS_VOLUME).withNewSecret()
                .withSecretName(secret).withDefaultMode(0440)
                .addNewItem().withKey(TlsModel.CA_CERT_KEY).withPath(TlsModel.CA_CERT_KEY).endItem()
                .endSecret().build()));
        return v;
    }
}
