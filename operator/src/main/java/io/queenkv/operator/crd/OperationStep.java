package io.queenkv.operator.crd;

/**
 * The last step of a {@link PendingOperation} done, as {@code status.pendingOperation.step} stores it. The
 * constant names are the stored strings (the operator wrote them before this type existed), so keep them.
 */
public enum OperationStep {
    /** The operation is recorded; nothing was done yet. */
    Recorded,
    /** Leadership moved off the operation's member (a ScaleDown or Roll of the leader). */
    LeadershipMoved,
    /** ScaleUp, Replace: the member is in the leader's configuration. */
    MemberAdded,
    /** ScaleDown: the removal committed; only now may the StatefulSet shrink past the member. Replace: only now may its data go. */
    MemberRemoved,
    /**
     * Roll: the member's pod was evicted (or deleted); waiting for it to come back on the target template.
     * Replace: its claim and pod were deleted; waiting for the new, empty pod to start.
     */
    PodDeleted
}
