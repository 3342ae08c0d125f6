package io.queenkv.operator.model;

import java.util.List;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.queenkv.operator.crd.QueenKvCluster;

/**
 * Everything a cluster should own, for a StatefulSet size the reconciler chose (it moves one ordinal
 * at a time; at creation, {@link Model#bootstrapReplicas}).
 */
public record DesiredResources(ConfigMap configMap, Service peerService, Service clientService, StatefulSet statefulSet,
                               PodDisruptionBudget podDisruptionBudget, String podTemplateHash) {

    public static DesiredResources of(QueenKvCluster c, int statefulSetReplicas) {
        return new DesiredResources(
                ConfigMapModel.build(c),
                ServiceModel.peers(c),
                ServiceModel.client(c),
                StatefulSetModel.build(c, statefulSetReplicas),
                PodDisruptionBudgetModel.build(c, statefulSetReplicas),
                PodTemplateHash.of(c));
    }

    /** At creation: the bootstrap size. */
    public static DesiredResources of(QueenKvCluster c) {
        return of(c, Model.bootstrapReplicas(c));
    }

    /** In creation order: the Services first, so pods find their peers' DNS names as they start. */
    public List<HasMetadata> all() {
        return List.of(configMap, peerService, clientService, statefulSet, podDisruptionBudget);
    }
}
