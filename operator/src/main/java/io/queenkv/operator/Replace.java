package io.queenkv.operator;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.Pod;
import io.queenkv.operator.crd.OperationStep;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.model.Peers;
import io.queenkv.operator.nodes.NodeAdmin;
import io.queenkv.operator.plan.Observed;
import io.queenkv.operator.plan.Planner;

/**
 * Replaces a member by a new, empty one on the same ordinal: one {@code spec.removeMembers} names, or, during a
 * scale-down, one that stays and has not been ready for longer than {@code spec.replaceNotServingAfter}. A
 * StatefulSet can only lose its highest ordinals: a member below the cut that the user wants gone (a bad disk, a
 * bad machine, a member that does not serve) is removed and comes back as a new incarnation instead, so a
 * scale-down then takes the highest ordinals from a group that serves.
 *
 * <p>Algorithm, one step per reconcile:
 * <ol>
 *   <li>The planner records the operation ({@code Recorded}) for the lowest named ordinal that is a member
 *       below {@code spec.replicas} and not replaced yet; else, while a scale-down is wanted and the highest
 *       ordinal serves, for the member that stays and has not been ready the longest, past the setting
 *       ({@link Planner#overdueForReplacement}). Only if removing it keeps a quorum of ready members.</li>
 *   <li>If the member leads, leadership is handed to a ready member first ({@code LeadershipMoved}).</li>
 *   <li>It is removed through the leader, the quorum checked again just before; the call answers once the
 *       configuration change committed. {@code MemberRemoved} is persisted.</li>
 *   <li>Only then are its claim and its pod deleted, the claim first: it is released once the pod is gone,
 *       so the pod the StatefulSet creates next gets a new, empty claim ({@code PodDeleted}).</li>
 *   <li>Once the new pod's node answers (outside any group, waiting to be added), it is added through the
 *       leader ({@code MemberAdded}): Ratis stages it, so it votes only once it holds the log.</li>
 *   <li>Once it has caught up, its ordinal is recorded in {@code status.replacedMembers} and the operation
 *       is done (the status keeps only ordinals the spec names: an automatic replacement leaves none).</li>
 * </ol>
 *
 * <p>Safety:
 * <ul>
 *   <li>The quorum never rests on the member being replaced: it leaves the configuration before its data
 *       goes, and only while the members that stay hold a quorum of ready ones.</li>
 *   <li>Its data is deleted only after its removal committed and was persisted; a restarted operator
 *       repeats the deletes, never the removal of a member added back.</li>
 *   <li>The StatefulSet keeps its size throughout; no other member's pod or claim is touched.</li>
 *   <li>An automatic replacement never wipes a disk for a short outage: the member must have been not ready
 *       for longer than {@code spec.replaceNotServingAfter} (10 minutes unless set; {@code 0} turns it off),
 *       and only a scale-down that would otherwise wait for it triggers one; one member at a time.</li>
 *   <li>The operation is superseded only while the member is still in the group and its removal was not
 *       persisted (no longer named, or, for an automatic one, the member serves again or no scale-down needs
 *       it); once removed, the new member is added back before anything else happens.</li>
 * </ul>
 */
final class Replace extends MemberOperation {
    private static final Logger LOG = LoggerFactory.getLogger(Replace.class);

    Replace(NodeAdmin nodes) {
        super(nodes);
    }

    @Override
    Outcome resume(Reconciling r, PendingOperation op) {
        Observed o = r.observed();
        int k = op.getOrdinal();
        String id = op.getMember();
        String pod = Names.pod(r.name(), k);
        if (Planner.removalNotPersisted(op)) {
            Optional<Outcome> notYet = removeFromGroup(r, op, QueenKvReconciler.REASON_REPLACING);
            if (notYet.isPresent()) return notYet.get();
            op.setStep(OperationStep.MemberRemoved);
            return Outcome.advanced(QueenKvReconciler.REASON_REPLACING, "removed " + id + " from the group; deleting its claim and pod next");
        }
        if (op.getStep() == OperationStep.MemberRemoved) {
            // Repeated as a whole after an operator restart: the pod deleted then may be the new one, which is no member yet.
            r.client().persistentVolumeClaims().inNamespace(r.namespace()).withName(Names.dataClaim(r.name(), k)).delete();
            r.client().pods().inNamespace(r.namespace()).withName(pod).delete();
            op.setStep(OperationStep.PodDeleted);
            LOG.info("{}/{}: deleted the claim and pod of {}; it comes back empty", r.namespace(), r.name(), id);
            return Outcome.advanced(QueenKvReconciler.REASON_REPLACING, "deleted the claim and pod of " + id + "; it comes back empty");
        }
        if (!o.isMember(id)) {
            Optional<Pod> p = o.pod(k);
            if (p.isPresent() && Observed.stuck(p.get()) && !Observed.terminating(p.get())
                    && r.client().persistentVolumeClaims().inNamespace(r.namespace()).withName(Names.dataClaim(r.name(), k)).get() == null) {
                // Created while the old claim was still being deleted: without a claim it never starts. Deleted
                // again, the StatefulSet creates it with a new claim.
                r.client().pods().inNamespace(r.namespace()).withName(pod).delete();
                return Outcome.advanced(QueenKvReconciler.REASON_REPLACING, "replaced pod " + pod + ", pending without a claim");
            }
            if (!o.views().containsKey(k)) return Outcome.waiting("waiting for the new pod " + pod + " of " + id + " to start");
            Peers.NodeAddress a = Peers.node(r.cluster(), k);
            nodes.addMember(r.cluster(), o.leaderOrdinal(), id, a.raftAddress(), a.httpAddress());
            op.setStep(OperationStep.MemberAdded);
            LOG.info("{}/{}: added the new {} to the group", r.namespace(), r.name(), id);
            return Outcome.advanced(QueenKvReconciler.REASON_REPLACING, "added the new " + id + "; waiting for it to catch up");
        }
        op.setStep(OperationStep.MemberAdded);
        if (!caughtUp(r, id)) return Outcome.waiting("waiting for the new " + id + " to catch up (" + o.notReadyReason(id) + ")");
        List<Integer> replaced = r.status().getReplacedMembers() == null ? new ArrayList<>() : new ArrayList<>(r.status().getReplacedMembers());
        if (!replaced.contains(k)) replaced.add(k);
        replaced.sort(null);
        r.status().setReplacedMembers(replaced);
        r.status().setPendingOperation(null);
        LOG.info("{}/{}: {} replaced and caught up", r.namespace(), r.name(), id);
        return Outcome.advanced(QueenKvReconciler.REASON_REPLACING, id + " replaced");
    }
}
