package io.queenkv.operator;

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
 * Adds one member to the group.
 *
 * <p>Algorithm, one step per reconcile:
 * <ol>
 *   <li>The planner records the operation ({@code Recorded}) for the lowest ordinal missing from the
 *       group (past the highest member, or a gap below it), and only once every member is ready.</li>
 *   <li>The reconciler sizes the StatefulSet from status ({@link Planner#statefulSetReplicas}: ordinal + 1),
 *       so the pod is created; its node starts outside any group and waits to be added.</li>
 *   <li>A pod that is stuck (Pending, crash-looping, its image not pulled) on a template the spec has left
 *       is deleted, so the StatefulSet recreates it from the current one.</li>
 *   <li>Once the node answers its admin API, it is added through the leader ({@code MemberAdded}); the
 *       call answers once the configuration change committed.</li>
 *   <li>Once it has caught up (in the leader's configuration, pod ready, {@code /readyz} 200),
 *       {@code status.replicas} counts it and the operation is done.</li>
 * </ol>
 *
 * <p>Safety:
 * <ul>
 *   <li>One member at a time, and only while every member is ready: the larger majority the new member
 *       brings is reachable without it.</li>
 *   <li>A pod is only ever deleted while its member is not in the group: nothing of the group's is lost.</li>
 *   <li>The operation is superseded (a smaller {@code spec.replicas}) only while its member is not in the
 *       group yet; a member already added is finished, and a scale-down then removes it the safe way.</li>
 *   <li>{@code status.replicas} rises only after the member caught up, so the StatefulSet never shrinks
 *       below a member that is still catching up.</li>
 * </ul>
 */
final class ScaleUp extends MemberOperation {
    private static final Logger LOG = LoggerFactory.getLogger(ScaleUp.class);

    ScaleUp(NodeAdmin nodes) {
        super(nodes);
    }

    @Override
    Outcome resume(Reconciling r, PendingOperation op) {
        Observed o = r.observed();
        int k = op.getOrdinal();
        String id = op.getMember();
        if (!o.isMember(id)) {
            Optional<Pod> pod = o.pod(k);
            if (pod.isPresent() && Observed.stuck(pod.get()) && !r.desiredHash().equals(o.podHash(k)) && !Observed.terminating(pod.get())) {
                // Not a member: nothing to protect. The StatefulSet (OnDelete) recreates it from the current template.
                r.client().pods().inNamespace(r.namespace()).withName(pod.get().getMetadata().getName()).delete();
                return Outcome.advanced(QueenKvReconciler.REASON_SCALING_UP, "replaced pod " + pod.get().getMetadata().getName()
                        + ", stuck on an older template");
            }
            if (!o.views().containsKey(k)) return Outcome.waiting("waiting for pod " + Names.pod(r.name(), k) + " to start");
            Peers.NodeAddress a = Peers.node(r.cluster(), k);
            nodes.addMember(r.cluster(), o.leaderOrdinal(), id, a.raftAddress(), a.httpAddress());
            op.setStep(OperationStep.MemberAdded);
            LOG.info("{}/{}: added {} to the group", r.namespace(), r.name(), id);
            return Outcome.advanced(QueenKvReconciler.REASON_SCALING_UP, "added " + id + "; waiting for it to catch up");
        }
        op.setStep(OperationStep.MemberAdded);
        if (!caughtUp(r, id)) return Outcome.waiting("waiting for " + id + " to catch up (" + o.notReadyReason(id) + ")");
        r.status().setReplicas(Planner.statefulSetReplicas(r.status())); // k + 1, or as before when k filled a gap below the highest member
        r.status().setPendingOperation(null);
        LOG.info("{}/{}: {} caught up; {} members", r.namespace(), r.name(), id, o.members().size());
        return Outcome.advanced(QueenKvReconciler.REASON_SCALING_UP, id + " caught up");
    }
}
