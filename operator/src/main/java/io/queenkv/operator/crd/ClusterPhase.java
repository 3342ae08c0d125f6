package io.queenkv.operator.crd;

/** What the operator is doing with a cluster, as shown by {@code kubectl get qkv}. */
public enum ClusterPhase {
    /** Resources are being created and the group is forming. */
    Creating,
    /** Every member is ready and nothing is in progress. */
    Running,
    /** Adding or removing one member at a time. */
    Scaling,
    /** Restarting pods one at a time after a restart-requiring change. */
    Rolling,
    /** The group has lost members or a step keeps failing; see the Degraded condition. */
    Degraded
}
