package io.queenkv.operator;

import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.queenkv.operator.crd.OperationStep;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.nodes.NodeAdmin;
import io.queenkv.operator.plan.Observed;
import io.queenkv.operator.plan.Quorum;

/**
 * Restarts one member's pod onto the pod template the spec asks for (a new image, JVM options, resources,
 * the restart annotation).
 *
 * <p>Algorithm, one step per reconcile:
 * <ol>
 *   <li>The planner records the operation ({@code Recorded}) with the target pod-template hash for one
 *       member on another template: followers first, highest ordinal first, the leader last; while any
 *       member is down, only a member that is down anyway (a new image may be its fix).</li>
 *   <li>If the member leads, leadership is handed to a ready member, one already on the target template
 *       first ({@code LeadershipMoved}).</li>
 *   <li>The quorum check ({@link Quorum#restartRefusal}) is repeated; then the pod is restarted through the
 *       Eviction API ({@code PodDeleted}). The StatefulSet ({@code OnDelete}) recreates it from the current
 *       template.</li>
 *   <li>Once the pod runs the target template and its member has caught up, the operation is done.</li>
 * </ol>
 *
 * <p>Safety:
 * <ul>
 *   <li>One pod at a time, each caught up before the next is recorded.</li>
 *   <li>A ready member is never restarted while fewer than a quorum of the other voters are ready, checked
 *       immediately before the restart (a drain or a crash since the roll was recorded counts).</li>
 *   <li>Evictions respect the PodDisruptionBudget: a refusal (429) waits and is retried. Only a group of
 *       one, whose budget allows no disruption, has its pod deleted.</li>
 *   <li>The leader is restarted last, after a hand-off: leadership moves once per roll, by a transfer, not by an
 *       election after a lost leader.</li>
 *   <li>A roll towards a template the spec has left is superseded by the planner: reverting a bad image
 *       replaces the pod that cannot start instead of waiting for it forever.</li>
 * </ul>
 */
final class Roll extends MemberOperation {
    private static final Logger LOG = LoggerFactory.getLogger(Roll.class);

    Roll(NodeAdmin nodes) {
        super(nodes);
    }

    @Override
    Outcome resume(Reconciling r, PendingOperation op) {
        Observed o = r.observed();
        int k = op.getOrdinal();
        String id = op.getMember();
        String target = op.getTargetPodTemplateHash();
        boolean restarted = target != null && target.equals(o.podHash(k));
        if (!restarted && op.getStep() != OperationStep.PodDeleted) {
            if (id.equals(o.leaderId())) return moveLeadershipOff(r, op, target, QueenKvReconciler.REASON_ROLLING);
            Optional<Pod> pod = o.pod(k);
            if (pod.isPresent() && !Observed.terminating(pod.get())) {
                // Checked again now, not only when the roll was recorded: a drain or a crash since then
                // may have taken another member, and this restart would then take the quorum with it.
                Optional<String> refusal = Quorum.restartRefusal(o, id);
                if (refusal.isPresent()) return Outcome.waiting(refusal.get());
                if (!restart(r, pod.get()))
                    return Outcome.waiting("the PodDisruptionBudget does not allow restarting " + id + " now (eviction refused)");
                LOG.info("{}/{}: restarting {} (pod {})", r.namespace(), r.name(), id, pod.get().getMetadata().getName());
            }
            op.setStep(OperationStep.PodDeleted);
            return Outcome.advanced(QueenKvReconciler.REASON_ROLLING, "restarting " + id);
        }
        if (!restarted) return Outcome.waiting("waiting for pod " + Names.pod(r.name(), k) + " to come back");
        if (!caughtUp(r, id)) return Outcome.waiting("waiting for " + id + " to catch up after its restart (" + o.notReadyReason(id) + ")");
        r.status().setPendingOperation(null);
        LOG.info("{}/{}: {} restarted and caught up", r.namespace(), r.name(), id);
        return Outcome.advanced(QueenKvReconciler.REASON_ROLLING, id + " restarted");
    }

    /**
     * Restarts a member's pod through the Eviction API, so a PodDisruptionBudget (ours, or a drain's
     * view of it) has its say; false when it refuses (429): try again later. A group of one has no
     * disruption to spare (its budget allows none), so its pod, which the user asked to restart, is deleted.
     */
    private static boolean restart(Reconciling r, Pod pod) {
        var p = r.client().pods().inNamespace(r.namespace()).withName(pod.getMetadata().getName());
        if (r.observed().members().size() <= 1) {
            p.delete();
            return true;
        }
        return p.evict(new EvictionBuilder().withNewMetadata().withName(pod.getMetadata().getName())
                .withNamespace(r.namespace()).endMetadata().build());
    }
}
