package io.queenkv.operator;

import java.util.Objects;

import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.model.Model;

/**
 * Which updates of a {@code QueenKvCluster} start a reconcile: a new generation (a spec change), a
 * deletion, and a change of the two control annotations (a manual restart, a pause), which leave the
 * generation as it is. The operator's own status writes start none.
 */
public class SpecOrControlsChanged implements OnUpdateFilter<QueenKvCluster> {
    @Override
    public boolean accept(QueenKvCluster old, QueenKvCluster now) {
        return !Objects.equals(old.getMetadata().getGeneration(), now.getMetadata().getGeneration())
                || now.getMetadata().getDeletionTimestamp() != null
                || !Objects.equals(Model.restartedAt(old), Model.restartedAt(now))
                || Model.paused(old) != Model.paused(now);
    }
}
