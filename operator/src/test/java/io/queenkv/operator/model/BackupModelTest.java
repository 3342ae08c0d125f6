package io.queenkv.operator.model;

import static io.queenkv.operator.Fixtures.IMAGE;
import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.queenkv.operator.crd.AuthSpec;
import io.queenkv.operator.crd.BackupSpec;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.SecretKeyRef;
import io.queenkv.operator.crd.StorageSpec;
import io.queenkv.operator.crd.TlsMode;
import io.queenkv.operator.crd.TlsSpec;

class BackupModelTest {
    static final BackupSpec DAILY = new BackupSpec("0 3 * * *", 5, new StorageSpec("20Gi", "fast"));

    static PodSpec pod(CronJob job) {
        return job.getSpec().getJobTemplate().getSpec().getTemplate().getSpec();
    }

    static Container container(CronJob job) {
        return pod(job).getContainers().get(0);
    }

    @Test
    void theCronJobRunsTheCliOfTheNodeImageOnScheduleOneAtATime() {
        QueenKvCluster c = cluster(3);
        CronJob job = BackupModel.cronJob(c, DAILY);
        assertThat(job.getMetadata().getName()).isEqualTo("kv-backup");
        assertThat(job.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> assertThat(o.getName()).isEqualTo("kv"));
        assertThat(job.getSpec().getSchedule()).isEqualTo("0 3 * * *");
        assertThat(job.getSpec().getConcurrencyPolicy()).isEqualTo("Forbid");
        assertThat(pod(job).getRestartPolicy()).isEqualTo("Never");
        assertThat(container(job).getImage()).isEqualTo(IMAGE);
        assertThat(container(job).getCommand()).containsExactly("sh", "-c", BackupModel.script("kv", 5, Model.CLI_JAR, Model.BACKUPS_DIR));
        assertThat(container(job).getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(pod(job).getSecurityContext().getRunAsNonRoot()).isTrue();
        var podLabels = job.getSpec().getJobTemplate().getSpec().getTemplate().getMetadata().getLabels();
        assertThat(podLabels).as("no selector of the node pods matches a backup pod")
                .doesNotContainEntry(Labels.NAME, Labels.APP).containsEntry(Labels.INSTANCE, "kv");
    }

    @Test
    void withTlsItTrustsTheClusterCaAndPresentsNoKeyOfItsOwn() {
        CronJob job = BackupModel.cronJob(cluster(3), DAILY);
        assertThat(container(job).getEnv()).extracting(EnvVar::getName, EnvVar::getValue).containsExactly(
                tuple("QUEEN_KV_ENDPOINTS", "https://kv.prod.svc:6632"), tuple("QUEEN_KV_CA_FILE", "/etc/queen-kv/tls/ca.crt"));
        assertThat(container(job).getVolumeMounts()).extracting(VolumeMount::getName, VolumeMount::getMountPath)
                .containsExactly(tuple("backups", "/backups"), tuple("tmp", "/tmp"), tuple("tls", "/etc/queen-kv/tls"));
        Volume tls = pod(job).getVolumes().stream().filter(v -> v.getName().equals("tls")).findFirst().orElseThrow();
        assertThat(tls.getSecret().getSecretName()).isEqualTo("kv-tls");
        assertThat(tls.getSecret().getItems()).extracting(i -> i.getKey()).containsExactly("ca.crt");
        Volume backups = pod(job).getVolumes().stream().filter(v -> v.getName().equals("backups")).findFirst().orElseThrow();
        assertThat(backups.getPersistentVolumeClaim().getClaimName()).isEqualTo("kv-backups");
    }

    @Test
    void withAuthTheAdminTokenComesFromItsSecretAndWithoutTlsOverHttp() {
        QueenKvCluster c = cluster(3);
        c.getSpec().setTls(new TlsSpec(TlsMode.Disabled));
        c.getSpec().setAuth(new AuthSpec(new SecretKeyRef("kv-tokens", null), new SecretKeyRef("kv-admin", "admin-token")));
        CronJob job = BackupModel.cronJob(c, DAILY);
        assertThat(container(job).getEnv()).extracting(EnvVar::getName).containsExactly("QUEEN_KV_ENDPOINTS", "QUEEN_KV_TOKEN");
        assertThat(container(job).getEnv().get(0).getValue()).isEqualTo("http://kv.prod.svc:6632");
        EnvVar token = container(job).getEnv().get(1);
        assertThat(token.getValue()).isNull();
        assertThat(token.getValueFrom().getSecretKeyRef().getName()).isEqualTo("kv-admin");
        assertThat(token.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("admin-token");
        assertThat(pod(job).getVolumes()).extracting(Volume::getName).containsExactly("backups", "tmp");
    }

    @Test
    void theClaimIsNotOwnedSoBackupsOutliveTheCluster() {
        var claim = BackupModel.claim(cluster(3), DAILY);
        assertThat(claim.getMetadata().getName()).isEqualTo("kv-backups");
        assertThat(claim.getMetadata().getOwnerReferences()).isNullOrEmpty();
        assertThat(claim.getSpec().getResources().getRequests()).containsEntry("storage", new Quantity("20Gi"));
        assertThat(claim.getSpec().getStorageClassName()).isEqualTo("fast");
        assertThat(BackupModel.claim(cluster(3), new BackupSpec("@daily", null, null)).getSpec().getResources().getRequests())
                .containsEntry("storage", new Quantity(StorageSpec.DEFAULT_SIZE));
    }

    @Test
    void theScriptKeepsTheNewestFilesOfThisClusterOnly() {
        String script = BackupModel.script("kv", 5, "/app/queen-kv-cli.jar", "/backups");
        assertThat(script).startsWith("set -eu\n")
                .contains("-jar /app/queen-kv-cli.jar backup \"$file\"")
                .contains("ls -1 /backups/kv-*.backup | sort -r | tail -n +6 |");
        assertThat(BackupModel.retention(new BackupSpec("@daily", null, null))).isEqualTo(BackupSpec.DEFAULT_RETENTION);
    }
}
