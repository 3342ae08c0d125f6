package io.queenkv.operator.model;

import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.queenkv.operator.crd.AuthSpec;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.PodTemplateOverrides;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;
import io.queenkv.operator.crd.SecretKeyRef;
import io.queenkv.operator.crd.SecretRef;
import io.queenkv.operator.crd.StorageSpec;
import io.queenkv.operator.crd.TlsSpec;

class PodTemplateHashTest {
    static QueenKvClusterSpec base() {
        QueenKvClusterSpec spec = cluster(3).getSpec();
        spec.setResources(new ResourceRequirementsBuilder().addToRequests("memory", new Quantity("1Gi")).build());
        spec.setJvmOptions(new ArrayList<>(List.of("-Xmx512m")));
        spec.setEnv(new ArrayList<>(List.of(new EnvVar("QUEEN_KV_SNAPSHOT_EVERY", "5000", null))));
        spec.setSettings(new KvSettings().maxValueBytes(65536));
        spec.setAuth(new AuthSpec(new SecretKeyRef("tokens", null), new SecretKeyRef("admin", null)));
        return spec;
    }

    static QueenKvClusterSpec changed(Consumer<QueenKvClusterSpec> change) {
        QueenKvClusterSpec spec = base();
        change.accept(spec);
        return spec;
    }

    static Stream<Arguments> rolling() {
        return Stream.of(
                Arguments.of("image", (Consumer<QueenKvClusterSpec>) s -> s.setImage("ghcr.io/queenkv/node:0.2.0")),
                Arguments.of("jvmOptions", (Consumer<QueenKvClusterSpec>) s -> s.getJvmOptions().add("-XX:+UseZGC")),
                Arguments.of("resources", (Consumer<QueenKvClusterSpec>) s -> s.setResources(
                        new ResourceRequirementsBuilder().addToRequests("memory", new Quantity("2Gi")).build())),
                Arguments.of("env value", (Consumer<QueenKvClusterSpec>) s -> s.getEnv().get(0).setValue("100")),
                Arguments.of("env added", (Consumer<QueenKvClusterSpec>) s -> s.getEnv().add(new EnvVar("TZ", "UTC", null))),
                Arguments.of("podTemplate tolerations", (Consumer<QueenKvClusterSpec>) s -> {
                    PodTemplateOverrides o = new PodTemplateOverrides();
                    o.setTolerations(List.of(new TolerationBuilder().withKey("k").withOperator("Exists").build()));
                    s.setPodTemplate(o);
                }),
                Arguments.of("podTemplate nodeSelector", (Consumer<QueenKvClusterSpec>) s -> {
                    PodTemplateOverrides o = new PodTemplateOverrides();
                    o.setNodeSelector(Map.of("disktype", "ssd"));
                    s.setPodTemplate(o);
                }),
                Arguments.of("tokens secret", (Consumer<QueenKvClusterSpec>) s -> s.getAuth().setTokensSecretRef(new SecretKeyRef("other", null))),
                Arguments.of("auth off", (Consumer<QueenKvClusterSpec>) s -> s.setAuth(null)),
                Arguments.of("tls on", (Consumer<QueenKvClusterSpec>) s -> s.setTls(new TlsSpec(new SecretRef("kv-tls")))),
                Arguments.of("restoreFrom (its claim is mounted)", (Consumer<QueenKvClusterSpec>) s -> s.setRestoreFrom(
                        new io.queenkv.operator.crd.RestoreSpec("kv-backups", "kv.backup"))));
    }

    static Stream<Arguments> notRolling() {
        return Stream.of(
                Arguments.of("replicas", (Consumer<QueenKvClusterSpec>) s -> s.setReplicas(5)),
                Arguments.of("settings", (Consumer<QueenKvClusterSpec>) s -> s.setSettings(new KvSettings().maxValueBytes(1024).writeRate(5))),
                Arguments.of("settings removed", (Consumer<QueenKvClusterSpec>) s -> s.setSettings(null)),
                Arguments.of("storage", (Consumer<QueenKvClusterSpec>) s -> s.setStorage(new StorageSpec("5Gi", "x"))),
                Arguments.of("admin token", (Consumer<QueenKvClusterSpec>) s -> s.getAuth().setAdminTokenSecretRef(new SecretKeyRef("a2", "k"))),
                Arguments.of("tokens key spelled out as its default", (Consumer<QueenKvClusterSpec>) s -> s.getAuth().getTokensSecretRef().setKey("tokens")),
                Arguments.of("reserved env entry (ignored)", (Consumer<QueenKvClusterSpec>) s -> s.getEnv().add(new EnvVar("QUEEN_KV_PEERS", "x", null))),
                Arguments.of("empty podTemplate", (Consumer<QueenKvClusterSpec>) s -> s.setPodTemplate(new PodTemplateOverrides())),
                Arguments.of("blank jvm option", (Consumer<QueenKvClusterSpec>) s -> s.getJvmOptions().add(" ")),
                Arguments.of("backup (a CronJob of its own)", (Consumer<QueenKvClusterSpec>) s -> s.setBackup(
                        new io.queenkv.operator.crd.BackupSpec("@daily", 3, null))));
    }

    @ParameterizedTest(name = "{0} rolls the pods")
    @MethodSource("rolling")
    void restartRequiringChangesRoll(String what, Consumer<QueenKvClusterSpec> change) {
        assertThat(PodTemplateHash.rollRequired(base(), changed(change))).as(what).isTrue();
    }

    @ParameterizedTest(name = "{0} does not roll the pods")
    @MethodSource("notRolling")
    void otherChangesDoNotRoll(String what, Consumer<QueenKvClusterSpec> change) {
        assertThat(PodTemplateHash.rollRequired(base(), changed(change))).as(what).isFalse();
    }

    @Test
    void stableAndShort() {
        assertThat(PodTemplateHash.of(base())).isEqualTo(PodTemplateHash.of(base())).matches("[0-9a-f]{16}");
    }

    @Test
    void nullAndEmptyHashAlike() {
        QueenKvClusterSpec a = cluster(3).getSpec(), b = cluster(3).getSpec();
        a.setJvmOptions(null);
        a.setEnv(null);
        b.setJvmOptions(List.of());
        b.setEnv(List.of());
        b.setPodTemplate(new PodTemplateOverrides());
        assertThat(PodTemplateHash.of(a)).isEqualTo(PodTemplateHash.of(b));
    }

    @Test
    void aSpecReadBackFromJsonHashesAsWritten() {
        QueenKvCluster c = cluster(3);
        c.setSpec(base());
        PodTemplateOverrides o = new PodTemplateOverrides();
        Map<String, String> sel = new LinkedHashMap<>();
        sel.put("b", "2");
        sel.put("a", "1");
        o.setNodeSelector(sel);
        c.getSpec().setPodTemplate(o);
        QueenKvCluster back = Serialization.unmarshal(Serialization.asJson(c), QueenKvCluster.class);
        assertThat(PodTemplateHash.of(back.getSpec())).isEqualTo(PodTemplateHash.of(c.getSpec()));
        // Map order does not matter.
        o.setNodeSelector(Map.of("a", "1", "b", "2"));
        assertThat(PodTemplateHash.of(back.getSpec())).isEqualTo(PodTemplateHash.of(c.getSpec()));
    }
}
