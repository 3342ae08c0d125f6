package io.queenkv.operator.plan;

import java.time.Duration;
import java.util.List;

import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.PodTemplateHash;

/**
 * What the resource asks for, as far as the {@link Planner} reads it.
 *
 * @param replicas               {@code spec.replicas}
 * @param image                  {@code spec.image}
 * @param settings               {@code spec.settings} (null: none set)
 * @param podTemplateHash        the hash every pod should run ({@link PodTemplateHash}: the spec and the restart annotation)
 * @param paused                 the pause annotation is {@code "true"}
 * @param removeMembers          {@code spec.removeMembers}: ordinals of members to replace
 * @param replaceNotServingAfter {@code spec.replaceNotServingAfter}: how long a member that stays may not be ready before a
 *                               scale-down replaces it; {@link Duration#ZERO}: never
 */
public record SpecView(int replicas, String image, KvSettings settings, String podTemplateHash, boolean paused,
                       List<Integer> removeMembers, Duration replaceNotServingAfter) {
    public SpecView {
        removeMembers = List.copyOf(removeMembers);
    }

    public static SpecView of(QueenKvCluster c) {
        return new SpecView(Model.replicas(Model.spec(c)), Model.spec(c).getImage(), Model.spec(c).getSettings(),
                PodTemplateHash.of(c), Model.paused(c),
                Model.removeMembers(Model.spec(c)), Model.replaceNotServingAfter(Model.spec(c)));
    }

    /** Whether a scale-down replaces a member that stays and has not been ready for {@link #replaceNotServingAfter}. */
    public boolean replacesNotServing() {
        return !replaceNotServingAfter.isZero();
    }
}
