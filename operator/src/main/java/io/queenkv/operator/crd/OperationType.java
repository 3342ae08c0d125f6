package io.queenkv.operator.crd;

/** A multi-step change the reconciler records in status before it acts. */
public enum OperationType {
    /** Raise the StatefulSet by one, wait for the pod, add it through the leader's admin API, wait for catch-up. */
    ScaleUp,
    /** Move leadership off the highest ordinal, remove it from the group, shrink the StatefulSet, delete its PVC. */
    ScaleDown,
    /** Restart one pod (followers first, the leader last after a hand-off), wait for catch-up. */
    Roll,
    /**
     * Replace a member named in {@code spec.removeMembers}, or one a scale-down would wait for that has not been
     * ready for {@code spec.replaceNotServingAfter}, by a new, empty one: remove it from the group, delete its
     * claim and pod, add the new pod back, wait for catch-up.
     */
    Replace
}
