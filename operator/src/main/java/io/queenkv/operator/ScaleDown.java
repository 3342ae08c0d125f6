package io.queenkv.operator;

import java.util.Optional;
import java.util.OptionalInt;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.operator.crd.OperationStep;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.nodes.NodeAdmin;
import io.queenkv.operator.plan.Observed;
import io.queenkv.operator.plan.Planner;
import io.queenkv.operator.plan.Quorum;

/**
 * Removes a member at or above the cut from the group, then shrinks the StatefulSet past it (a StatefulSet can
 * only lose its highest ordinal).
 *
 * <p>Algorithm, one step per reconcile:
 * <ol>
 *   <li>The planner records the operation ({@code Recorded}) only if removing the member keeps a quorum of
 *       ready members, and not while a member that stays is down. Of the members at or above the cut, one that
 *       does not serve goes first ({@link Planner#nextToLeave}), else the highest ordinal; an ordinal whose
 *       member left already but whose pod is still there (the StatefulSet larger than the group needs) is
 *       recorded too, and only shrunk.</li>
 *   <li>If the member leads, leadership is handed to a ready member first ({@code LeadershipMoved}).</li>
 *   <li>It is removed through the leader; the call answers once the configuration change committed.</li>
 *   <li>{@code MemberRemoved} is persisted in status. A member below a higher one ends here: its pod stays
 *       (never below the highest member + 1, {@link Planner#safeStatefulSetReplicas}) until the higher members
 *       have left; then it is recorded again, as the StatefulSet's highest pod, and shrunk.</li>
 *   <li>Only then does the reconciler's apply shrink the StatefulSet past the ordinal
 *       ({@link Planner#statefulSetReplicas} reads the persisted step).</li>
 *   <li>Once its pod is gone, its claim is deleted and {@code status.replicas} counts one member fewer.</li>
 * </ol>
 *
 * <p>Safety:
 * <ul>
 *   <li>The quorum check ({@link Quorum#removalRefusal}) is repeated immediately before the removal, not
 *       only when the operation was recorded: a member lost in between refuses it.</li>
 *   <li>The leader is never removed: it hands off first.</li>
 *   <li>The StatefulSet never shrinks before the removal is persisted, and the claim is deleted by the
 *       operator alone ({@code whenScaled: Retain}) after the pod is gone: no other shrink takes the data of
 *       a member still in the group.</li>
 *   <li>The operation is superseded (a larger {@code spec.replicas}) only while the member is still in the
 *       group and its removal was not persisted.</li>
 * </ul>
 */
final class ScaleDown extends MemberOperation {
    private static final Logger LOG = LoggerFactory.getLogger(ScaleDown.class);

    ScaleDown(NodeAdmin nodes) {
        super(nodes);
    }

    @Override
    Outcome resume(Reconciling r, PendingOperation op) {
        Observed o = r.observed();
        int k = op.getOrdinal();
        String id = op.getMember();
        Optional<Outcome> notYet = removeFromGroup(r, op, QueenKvReconciler.REASON_SCALING_DOWN);
        if (notYet.isPresent()) return notYet.get();
        OptionalInt above = o.members().stream().mapToInt(Names::ordinalOf).filter(m -> m > k).max();
        if (op.getStep() != OperationStep.MemberRemoved) {
            op.setStep(OperationStep.MemberRemoved);
            return Outcome.advanced(QueenKvReconciler.REASON_SCALING_DOWN, "removed " + id + " from the group; "
                    + (above.isPresent() ? "its pod stays until " + Names.nodeId(above.getAsInt()) + " has gone" : "shrinking the StatefulSet next"));
        }
        if (above.isPresent()) {
            // Not the highest ordinal (it did not serve and left first): the StatefulSet cannot lose it yet.
            // Planner#safeStatefulSetReplicas keeps the higher members' pods; their own scale-downs shrink past it.
            r.status().setPendingOperation(null);
            return Outcome.advanced(QueenKvReconciler.REASON_SCALING_DOWN, id + " removed from the group; its pod and claim go once the"
                    + " StatefulSet shrinks past it");
        }
        if (o.pod(k).isPresent()) return Outcome.waiting("removed " + id + "; waiting for pod " + Names.pod(r.name(), k) + " to go");
        r.client().persistentVolumeClaims().inNamespace(r.namespace()).withName(Names.dataClaim(r.name(), k)).delete();
        r.status().setReplicas(k);
        r.status().setPendingOperation(null);
        LOG.info("{}/{}: {} removed, claim deleted; a StatefulSet of {}", r.namespace(), r.name(), id, k);
        return Outcome.advanced(QueenKvReconciler.REASON_SCALING_DOWN, id + " removed");
    }
}
