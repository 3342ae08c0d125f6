package io.queenkv.operator.model;

import static io.queenkv.operator.Fixtures.UID;
import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.queenkv.operator.crd.QueenKvCluster;

/** What the model builders make for a cluster (the operator's dependent resources apply them, in this order). */
class OwnershipTest {
    final QueenKvCluster c = cluster("kv", "prod", 3);
    final StatefulSet statefulSet = StatefulSetModel.build(c);
    final List<HasMetadata> all = List.of(ConfigMapModel.build(c), ServiceModel.peers(c), ServiceModel.client(c), statefulSet,
            PodDisruptionBudgetModel.build(c, 3));

    @Test
    void everyResourceIsLabelledAndOwnedByTheCluster() {
        assertThat(all).hasSize(5);
        for (HasMetadata r : all) {
            assertThat(r.getMetadata().getNamespace()).as(r.getKind()).isEqualTo("prod");
            assertThat(r.getMetadata().getLabels()).as(r.getKind())
                    .containsEntry("app.kubernetes.io/name", "queen-kv")
                    .containsEntry("app.kubernetes.io/instance", "kv")
                    .containsEntry("app.kubernetes.io/managed-by", "queen-kv-operator");
            assertThat(r.getMetadata().getOwnerReferences()).as(r.getKind()).singleElement().satisfies(o -> {
                assertThat(o.getApiVersion()).isEqualTo("queenkv.io/v1alpha1");
                assertThat(o.getKind()).isEqualTo("QueenKvCluster");
                assertThat(o.getName()).isEqualTo("kv");
                assertThat(o.getUid()).isEqualTo(UID);
                assertThat(o.getController()).isTrue();
                assertThat(o.getBlockOwnerDeletion()).isTrue();
            });
        }
    }

    @Test
    void kindsAndNames() {
        assertThat(all).extracting(HasMetadata::getKind, r -> r.getMetadata().getName()).containsExactly(
                org.assertj.core.groups.Tuple.tuple("ConfigMap", "kv-config"),
                org.assertj.core.groups.Tuple.tuple("Service", "kv-peers"),
                org.assertj.core.groups.Tuple.tuple("Service", "kv"),
                org.assertj.core.groups.Tuple.tuple("StatefulSet", "kv"),
                org.assertj.core.groups.Tuple.tuple("PodDisruptionBudget", "kv"));
        assertThat(PodTemplateHash.of(c)).isEqualTo(PodTemplateHash.of(c.getSpec()));
    }

    @Test
    void claimsAndPodsCarryTheSelectorLabels() {
        assertThat(statefulSet.getSpec().getVolumeClaimTemplates().get(0).getMetadata().getLabels())
                .containsAllEntriesOf(Labels.selector("kv"));
        assertThat(statefulSet.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(statefulSet.getSpec().getSelector().getMatchLabels());
        assertThat(Labels.selectorString("kv")).isEqualTo("app.kubernetes.io/name=queen-kv,app.kubernetes.io/instance=kv");
    }

    @Test
    void sizedForTheReconcilersStep() {
        assertThat(StatefulSetModel.build(c, 4).getSpec().getReplicas()).isEqualTo(4);
        assertThat(PodDisruptionBudgetModel.build(c, 4).getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
        // The peer list stays the bootstrap one.
        assertThat(ConfigMapModel.build(c).getData().get("QUEEN_KV_PEERS").split(",")).hasSize(3);
    }
}
