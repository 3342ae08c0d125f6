package io.queenkv.operator.model;

import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;

class PodDisruptionBudgetModelTest {
    @ParameterizedTest(name = "{0} replicas → maxUnavailable {1}")
    @CsvSource({"1,0", "3,1", "5,2", "7,3"})
    void sizedFromQuorum(int replicas, int maxUnavailable) {
        PodDisruptionBudget pdb = PodDisruptionBudgetModel.build(cluster("kv", "prod", replicas));
        assertThat(pdb.getMetadata().getName()).isEqualTo("kv");
        assertThat(pdb.getMetadata().getNamespace()).isEqualTo("prod");
        assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(maxUnavailable);
        assertThat(pdb.getSpec().getMinAvailable()).isNull();
        assertThat(pdb.getSpec().getSelector().getMatchLabels())
                .containsExactlyInAnyOrderEntriesOf(Labels.selector("kv"));
    }

    @ParameterizedTest(name = "{0} members mid-scale → maxUnavailable {1}")
    @CsvSource({"2,0", "4,1", "6,2"})
    void midScaleTheCurrentMemberCountDecides(int members, int maxUnavailable) {
        assertThat(PodDisruptionBudgetModel.build(cluster(5), members).getSpec().getMaxUnavailable().getIntVal())
                .isEqualTo(maxUnavailable);
    }
}
