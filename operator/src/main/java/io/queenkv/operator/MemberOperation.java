package io.queenkv.operator;

import java.util.Comparator;
import java.util.Optional;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.queenkv.operator.crd.OperationStep;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterStatus;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.nodes.NodeAdmin;
import io.queenkv.operator.plan.Observed;
import io.queenkv.operator.plan.Quorum;

/**
 * A multi-step change of one member ({@link ScaleUp}, {@link ScaleDown}, {@link Roll}, {@link Replace}) that the
 * {@link io.queenkv.operator.plan.Planner} recorded in {@code status.pendingOperation}. Each reconcile
 * calls {@link #resume} once: it takes at most one step, records it in {@link PendingOperation#getStep}
 * (status is written by the reconciler after it returns), and says what it did or waits for. Every step
 * is idempotent, so a step repeated after an operator restart does no harm.
 */
abstract sealed class MemberOperation permits ScaleUp, ScaleDown, Roll, Replace {
    private static final Logger LOG = LoggerFactory.getLogger(MemberOperation.class);

    /**
     * The cluster being reconciled: the resource, the copy of its status this reconcile writes, what it
     * observed, the client, and the pod-template hash the spec asks for.
     */
    record Reconciling(QueenKvCluster cluster, QueenKvClusterStatus status, Observed observed, KubernetesClient client,
                       String desiredHash) {
        String namespace() { return Model.namespace(cluster); }

        String name() { return Model.name(cluster); }
    }

    final NodeAdmin nodes;

    MemberOperation(NodeAdmin nodes) {
        this.nodes = nodes;
    }

    /** The next step of {@code op}, the operation recorded in {@code r.status()}. */
    abstract Outcome resume(Reconciling r, PendingOperation op);

    /** In the leader's configuration, pod ready, {@code /readyz} answering 200, applied close to the leader's commit. */
    final boolean caughtUp(Reconciling r, String id) {
        return r.observed().ready(id) && nodes.ready(r.cluster(), Names.ordinalOf(id));
    }

    /**
     * Takes the operation's member out of the group through the leader, if it is still in it: refused while
     * the members that stay would not hold a quorum (checked again right before the call), and a leader
     * hands leadership off first. Empty once the member is out; otherwise the outcome of this reconcile.
     */
    final Optional<Outcome> removeFromGroup(Reconciling r, PendingOperation op, String reason) {
        Observed o = r.observed();
        String id = op.getMember();
        if (!o.isMember(id)) return Optional.empty();
        Optional<String> refusal = Quorum.removalRefusal(o, id);
        if (refusal.isPresent()) return Optional.of(Outcome.refused(QueenKvReconciler.REASON_WOULD_LOSE_QUORUM, refusal.get()));
        if (id.equals(o.leaderId())) return Optional.of(moveLeadershipOff(r, op, null, reason));
        nodes.removeMember(r.cluster(), o.leaderOrdinal(), id);
        LOG.info("{}/{}: removed {} from the group", r.namespace(), r.name(), id);
        return Optional.empty();
    }

    /** Hands leadership from the operation's member (the leader) to a ready member, preferring one on {@code preferHash}. */
    final Outcome moveLeadershipOff(Reconciling r, PendingOperation op, String preferHash, String reason) {
        String id = op.getMember();
        String to = handOffTarget(r.observed(), id, preferHash);
        if (to == null) return Outcome.waiting("no ready member to hand leadership to");
        nodes.transferLeadership(r.cluster(), r.observed().leaderOrdinal(), to);
        op.setStep(OperationStep.LeadershipMoved);
        LOG.info("{}/{}: moved leadership from {} to {}", r.namespace(), r.name(), id, to);
        return Outcome.advanced(reason, "moved leadership from " + id + " to " + to);
    }

    /** A ready member other than {@code leaving}, one already on {@code preferredHash} first, then the lowest ordinal. */
    private static String handOffTarget(Observed o, String leaving, String preferredHash) {
        Function<String, Boolean> onHash = id -> preferredHash != null && preferredHash.equals(o.podHash(Names.ordinalOf(id)));
        return o.readyMembers().stream().filter(id -> !id.equals(leaving))
                .min(Comparator.comparing((String id) -> !onHash.apply(id)).thenComparingInt(Names::ordinalOf))
                .orElse(null);
    }
}
