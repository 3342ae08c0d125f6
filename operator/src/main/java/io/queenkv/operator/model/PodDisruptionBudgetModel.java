package io.queenkv.operator.model;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.queenkv.operator.crd.QueenKvCluster;

/** Voluntary disruptions (drains) may take down only what the group survives: a minority. */
public final class PodDisruptionBudgetModel {
    private PodDisruptionBudgetModel() {}

    /** {@code (members - 1) / 2}: 1 → 0, 3 → 1, 5 → 2, 7 → 3 (and 4, mid-scale, → 1). */
    public static int maxUnavailable(int members) {
        return Math.max(0, (members - 1) / 2);
    }

    /** Sized from {@code spec.replicas}. */
    public static PodDisruptionBudget build(QueenKvCluster c) {
        return build(c, Model.replicas(Model.spec(c)));
    }

    /** Sized from the current number of members (mid-scale the reconciler passes the current count). */
    public static PodDisruptionBudget build(QueenKvCluster c, int members) {
        return new PodDisruptionBudgetBuilder()
                .withMetadata(Model.metadata(c, Names.podDisruptionBudget(Model.name(c))))
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(maxUnavailable(members)))
                .withNewSelector().withMatchLabels(Labels.selector(Model.name(c))).endSelector()
                .endSpec()
                .build();
    }
}
