package io.queenkv.operator.plan;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.queenkv.operator.crd.ClusterPhase;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.OperationStep;
import io.queenkv.operator.crd.OperationType;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.crd.QueenKvClusterStatus;
import io.queenkv.operator.crd.SpecDuration;
import io.queenkv.operator.model.Names;

/**
 * Decides the one next step of a reconcile from what the spec asks ({@link SpecView}), what status
 * records (the operation in progress) and what was just observed ({@link Observed}). A pure function: no
 * Kubernetes client, no node calls, no clock (the instant is passed in), so every decision is tested from
 * a table of cases ({@code PlannerTest}).
 *
 * <p>In order, the first that applies:
 * <ol>
 *   <li>paused: nothing;</li>
 *   <li>an operation is recorded: wait for a leader, drop it if the spec has moved on
 *       ({@link #supersededBy}), else resume it;</li>
 *   <li>no leader, or the group still being created: wait;</li>
 *   <li>settings the spec sets differ from those in force: apply them (through the log, no restart);</li>
 *   <li>a member being re-admitted after a lost disk: wait for the node to finish;</li>
 *   <li>a member {@code spec.removeMembers} names, below {@code spec.replicas} and not replaced yet: record
 *       its Replace, unless removing it loses the quorum;</li>
 *   <li>fewer members than the spec asks: record a ScaleUp of the lowest missing ordinal, once every
 *       member is ready;</li>
 *   <li>more: while the highest ordinal serves, a member that stays and has not been ready for longer than
 *       {@code spec.replaceNotServingAfter}: record its Replace ({@link #overdueForReplacement}); else record a
 *       ScaleDown of a member at or above the cut, one that does not serve first, else the highest ordinal
 *       ({@link #nextToLeave}), unless that loses the quorum or a member that stays is down;</li>
 *   <li>a StatefulSet larger than the group needs (a member that did not serve left before a higher one):
 *       record a ScaleDown of its highest pod;</li>
 *   <li>pods on another template: record a Roll, followers first (highest ordinal first), the leader last;
 *       while a member is down, only a member that is down anyway;</li>
 *   <li>else: up to date.</li>
 * </ol>
 * Operations are only recorded here; the next reconcile acts, so an operator restarted mid-way finds the
 * intent in status and resumes it.
 */
public final class Planner {
    /** The Progressing reason while the group is being created (status reads it back, {@link #creating}). */
    public static final String CREATING_REASON = "Creating";

    private Planner() {}

    public static Action next(SpecView spec, QueenKvClusterStatus s, Observed o, Instant now) {
        if (spec.paused()) return new Action.Paused();
        PendingOperation op = s.getPendingOperation();
        if (op != null) {
            if (o.leaderView() == null) return new Action.Wait(op.getType() + " of " + op.getMember() + " waits for a leader: " + o.withoutLeader());
            Optional<String> superseded = supersededBy(spec, s, o, op, now);
            return superseded.isPresent() ? new Action.Supersede(op, superseded.get()) : new Action.Resume(op);
        }
        return choose(spec, s, o, now);
    }

    /** No operation recorded: the next one, or a wait. */
    private static Action choose(SpecView spec, QueenKvClusterStatus s, Observed o, Instant now) {
        if (o.leaderView() == null) return new Action.Wait("waiting for the group to elect a leader");
        List<String> members = o.members();
        List<String> ready = o.readyMembers();
        boolean allReady = ready.size() == members.size();
        if (creating(s) && !(allReady && members.size() >= s.getBootstrapReplicas()))
            return new Action.Wait("waiting for " + s.getBootstrapReplicas() + " members to be ready (" + ready.size() + " are)");

        // Settings: committed through the log, every node switches at the same index; no restart.
        KvSettings want = spec.settings();
        if (want != null && differs(want, o.leaderView().settings())) return new Action.ApplySettings(want);

        // A member re-admitted after losing its disk is neither missing (to add) nor extra (to remove): wait for the node.
        if (!o.readmitting().isEmpty())
            return new Action.Wait("waiting for " + String.join(", ", o.readmitting()) + " to be re-admitted (a learner until it has caught up)");

        int desired = spec.replicas();
        // spec.removeMembers: a named member that stays (a StatefulSet only ever loses its highest ordinals)
        // is replaced by a new, empty one before any scaling; one at or above the cut goes with the scale-down.
        List<Integer> replaced = s.getReplacedMembers() == null ? List.of() : s.getReplacedMembers();
        Optional<String> replace = spec.removeMembers().stream().sorted().filter(k -> k < desired && !replaced.contains(k))
                .map(Names::nodeId).filter(o::isMember).findFirst();
        if (replace.isPresent()) return replace(o, replace.get(), now, "spec.removeMembers");

        int highest = members.stream().mapToInt(Names::ordinalOf).max().orElse(-1);
        if (desired > members.size()) {
            if (!allReady) return new Action.Wait("scale up waits until every member is ready");
            // The lowest ordinal missing from the group: past the highest member, or a gap below it (a member a
            // leader took out to re-admit it after a lost disk and died before taking it back in) whose pod and
            // claim are there: it is added back before any new ordinal.
            int add = IntStream.range(0, desired).filter(k -> !o.isMember(Names.nodeId(k))).findFirst().orElse(highest + 1);
            return record(OperationType.ScaleUp, add, null, now, (add < highest ? "adding back " : "scale up: adding ") + Names.nodeId(add));
        }
        if (desired < members.size()) {
            List<String> overdue = overdueForReplacement(spec, s, o, now);
            if (!overdue.isEmpty()) {
                String dead = overdue.get(0);
                return replace(o, dead, now, "not ready since " + notReadySince(s, o, dead).orElseThrow()
                        + ", longer than spec.replaceNotServingAfter " + SpecDuration.format(spec.replaceNotServingAfter())
                        + ", and the scale-down would otherwise wait for it");
            }
            String id = nextToLeave(o, desired);
            Optional<String> refusal = Quorum.removalRefusal(o, id);
            if (refusal.isPresent()) return new Action.WouldLoseQuorum(refusal.get());
            // Taking a serving member away while one that stays is down would leave the group with fewer serving
            // members than it needs to lose one more: the members that stay are brought back first (a restarted
            // pod, a re-admitted disk), or replaced past spec.replaceNotServingAfter.
            List<String> downAndStaying = members.stream().filter(m -> Names.ordinalOf(m) < desired && !o.ready(m)).toList();
            if (o.ready(id) && !downAndStaying.isEmpty())
                return new Action.Wait("scale down waits until " + String.join(", ", downAndStaying) + ", which stay"
                        + (downAndStaying.size() == 1 ? "s" : "") + ", serve again (the highest ordinal, " + id + ", goes first)"
                        + replacementDue(spec, s, o, downAndStaying, desired));
            return record(OperationType.ScaleDown, Names.ordinalOf(id), null, now, Names.ordinalOf(id) == highest
                    ? "scale down: removing " + id
                    : "scale down: removing " + id + " first, which does not serve (its pod goes once the StatefulSet shrinks past it)");
        }
        // A member that left the group before a higher one (it did not serve) keeps its pod until the StatefulSet
        // shrinks past it: once no member is above it, it goes as the highest ordinal would.
        int size = statefulSetReplicas(s);
        if (size > Math.max(desired, highest + 1))
            return record(OperationType.ScaleDown, size - 1, null, now,
                    "scale down: " + Names.nodeId(size - 1) + " left the group; shrinking the StatefulSet past it");

        // Roll: pods whose template hash is not the desired one, followers first, the leader last.
        String desiredHash = spec.podTemplateHash();
        List<String> stale = members.stream().filter(id -> !desiredHash.equals(o.podHash(Names.ordinalOf(id)))).toList();
        if (stale.isEmpty()) return new Action.UpToDate(desiredHash, spec.image());
        Optional<String> down = stale.stream().filter(id -> !o.ready(id)).findFirst();
        String pick;
        if (!allReady) {
            // A member that is down anyway may be restarted (a new image may be its fix); no one else.
            if (down.isEmpty()) return new Action.Wait("the roll waits until every member is ready");
            pick = down.get();
        } else {
            pick = stale.stream().filter(id -> !id.equals(o.leaderId()))
                    .max(Comparator.comparingInt(Names::ordinalOf)).orElse(o.leaderId());
        }
        return record(OperationType.Roll, Names.ordinalOf(pick), desiredHash, now, "rolling " + pick);
    }

    /**
     * The member a scale-down takes out of the group next: of those at or above the cut ({@code spec.replicas}),
     * one that does not serve first (the highest such), else the highest ordinal. A member that does not serve
     * holds nothing the ready quorum lacks: removing it first keeps every serving member, and the group's
     * tolerance of one more failure, through the shrink. Its pod stays until the members above it are gone.
     */
    static String nextToLeave(Observed o, int desired) {
        return o.members().stream().filter(m -> Names.ordinalOf(m) >= desired)
                .max(Comparator.comparing((String m) -> !o.ready(m)).thenComparingInt(Names::ordinalOf))
                .orElseThrow();
    }

    /** Records the Replace of {@code id} ({@code why} it is replaced), unless removing it from the group loses the quorum. */
    private static Action replace(Observed o, String id, Instant now, String why) {
        Optional<String> refusal = Quorum.removalRefusal(o, id);
        if (refusal.isPresent()) return new Action.WouldLoseQuorum(refusal.get());
        return record(OperationType.Replace, Names.ordinalOf(id), null, now,
                "replacing " + id + " (" + why + "): removing it from the group, then its claim and pod");
    }

    /**
     * The members a scale-down replaces before it shrinks, the longest not ready first: members that stay (below
     * {@code spec.replicas}), not {@linkplain Observed#ready ready} now and recorded not ready
     * ({@code status.members[].notReadySince}) for longer than {@code spec.replaceNotServingAfter}; only while a
     * scale-down is wanted and its next member, the highest ordinal, serves. A StatefulSet only removes its highest
     * ordinals: without this a scale-down waits for a dead member below the cut for ever, or takes serving members
     * away around it. A member that does not serve holds nothing the ready quorum lacks, and {@link Quorum} still
     * refuses a removal that would leave too few ready; the setting keeps a restart, a drain or a rescheduled pod
     * (a short outage) from wiping a disk. Empty when the setting is off.
     */
    static List<String> overdueForReplacement(SpecView spec, QueenKvClusterStatus s, Observed o, Instant now) {
        List<String> members = o.members();
        if (!spec.replacesNotServing() || spec.replicas() >= members.size() || !o.ready(members.get(members.size() - 1)))
            return List.of();
        return members.stream().filter(id -> Names.ordinalOf(id) < spec.replicas() && !o.ready(id))
                .filter(id -> notReadySince(s, o, id).map(since -> since.plus(spec.replaceNotServingAfter()).isBefore(now)).orElse(false))
                .sorted(Comparator.comparing((String id) -> notReadySince(s, o, id).orElseThrow()).thenComparingInt(Names::ordinalOf))
                .toList();
    }

    /**
     * Since when member {@code id} has not served: as status recorded it, or later if its pod turned not ready later
     * ({@link Observed#notServingSince}: status may predate this outage when the operator was down through a
     * recovery); empty if status recorded nothing (or the instant does not read).
     */
    static Optional<Instant> notReadySince(QueenKvClusterStatus s, Observed o, String id) {
        if (s.getMembers() == null) return Optional.empty();
        return s.getMembers().stream().filter(m -> id.equals(m.getId()) && m.getNotReadySince() != null).findFirst().flatMap(m -> {
            try {
                return Optional.of(o.notServingSince(id, Instant.parse(m.getNotReadySince())));
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        });
    }

    /** For a scale-down's wait message: when the first of {@code down} that stays is replaced if it does not serve before. */
    private static String replacementDue(SpecView spec, QueenKvClusterStatus s, Observed o, List<String> down, int desired) {
        if (!spec.replacesNotServing()) return "; spec.replaceNotServingAfter is 0: name a member in spec.removeMembers to replace it";
        return down.stream().filter(id -> Names.ordinalOf(id) < desired && notReadySince(s, o, id).isPresent())
                .min(Comparator.comparing((String id) -> notReadySince(s, o, id).orElseThrow()))
                .map(id -> "; " + id + " is replaced if it does not serve by " + notReadySince(s, o, id).orElseThrow().plus(spec.replaceNotServingAfter())
                        + " (spec.replaceNotServingAfter " + SpecDuration.format(spec.replaceNotServingAfter()) + ")")
                .orElse("");
    }

    private static Action record(OperationType type, int ordinal, String hash, Instant now, String message) {
        PendingOperation op = new PendingOperation(type, Names.nodeId(ordinal), ordinal, now.toString());
        op.setTargetPodTemplateHash(hash);
        op.setStep(OperationStep.Recorded);
        return new Action.Record(op, message);
    }

    /**
     * Why the recorded operation no longer follows the spec, if it does not: a roll towards a template the
     * spec has left (a reverted image: its target may be the very pod that cannot start); a scale-up whose
     * member is not in the group yet while the spec no longer wants it; a scale-down whose member is still
     * in the group while the spec wants it again. A member already added, or already removed, is finished
     * first: the step that follows undoes it the safe way. A replacement neither the spec names any more nor a
     * scale-down needs ({@link #overdueForReplacement}: the member serves again, say), while its member is still in
     * the group and its removal not persisted; once removed, it is finished.
     */
    static Optional<String> supersededBy(SpecView spec, QueenKvClusterStatus s, Observed o, PendingOperation op, Instant now) {
        int wanted = spec.replicas();
        return switch (op.getType()) {
            case Roll -> spec.podTemplateHash().equals(op.getTargetPodTemplateHash()) ? Optional.empty()
                    : Optional.of("the pod template changed again (now " + spec.podTemplateHash() + ")");
            case ScaleUp -> !o.isMember(op.getMember()) && wanted <= op.getOrdinal()
                    ? Optional.of("spec.replicas is " + wanted + " now") : Optional.empty();
            case ScaleDown -> o.isMember(op.getMember()) && op.getStep() != OperationStep.MemberRemoved && wanted >= o.members().size()
                    ? Optional.of("spec.replicas is " + wanted + " now") : Optional.empty();
            case Replace -> o.isMember(op.getMember()) && removalNotPersisted(op)
                    && !(spec.removeMembers().contains(op.getOrdinal()) && op.getOrdinal() < wanted)
                    && !overdueForReplacement(spec, s, o, now).contains(op.getMember())
                    ? Optional.of("spec.removeMembers no longer names " + op.getOrdinal() + " below spec.replicas " + wanted
                            + ", and no scale-down waits for " + op.getMember() + " past spec.replaceNotServingAfter")
                    : Optional.empty();
        };
    }

    /** Recorded, or leadership moved off: the member was not removed yet. */
    public static boolean removalNotPersisted(PendingOperation op) {
        return op.getStep() == OperationStep.Recorded || op.getStep() == OperationStep.LeadershipMoved;
    }

    /** Whether a field the spec sets differs from the value in force. */
    static boolean differs(KvSettings want, KvSettings inForce) {
        if (inForce == null) return true;
        return (want.getMaxValueBytes() != null && !want.getMaxValueBytes().equals(inForce.getMaxValueBytes()))
                || (want.getMaxKeysPerCall() != null && !want.getMaxKeysPerCall().equals(inForce.getMaxKeysPerCall()))
                || (want.getMaxOpsPerCall() != null && !want.getMaxOpsPerCall().equals(inForce.getMaxOpsPerCall()))
                || (want.getMaxBodyBytes() != null && !want.getMaxBodyBytes().equals(inForce.getMaxBodyBytes()))
                || (want.getWriteRate() != null && !want.getWriteRate().equals(inForce.getWriteRate()))
                || (want.getReadRate() != null && !want.getReadRate().equals(inForce.getReadRate()));
    }

    /** Creating until the bootstrap members were first all ready ({@code status.bootstrappedAt}); never again after that. */
    public static boolean creating(QueenKvClusterStatus s) {
        if (s.getBootstrappedAt() != null) return false;
        return s.getPhase() == null || s.getPhase() == ClusterPhase.Creating
                || (s.getPhase() == ClusterPhase.Degraded && s.getConditions() != null && s.getConditions().stream()
                        .anyMatch(c -> QueenKvClusterStatus.PROGRESSING.equals(c.getType()) && CREATING_REASON.equals(c.getReason())));
    }

    // ---------------------------------------------------------------------------------------------
    // How many pods the StatefulSet has, from what status records and the group

    /**
     * The completed member count ({@code status.replicas}), plus the ordinal being added, or minus the
     * ordinal already removed from the group.
     */
    public static int statefulSetReplicas(QueenKvClusterStatus s) {
        int members = s.getReplicas() != null ? s.getReplicas() : s.getBootstrapReplicas();
        PendingOperation op = s.getPendingOperation();
        if (op == null) return members;
        return switch (op.getType()) {
            case ScaleUp -> Math.max(members, op.getOrdinal() + 1);
            case ScaleDown -> op.getStep() == OperationStep.MemberRemoved ? op.getOrdinal() : op.getOrdinal() + 1;
            case Roll, Replace -> members;
        };
    }

    /**
     * The size status calls for, bounded by the group: never below the highest ordinal in the leader's
     * configuration (or being re-admitted) + 1, so a stale or hand-edited status cannot take the pod of a
     * member; and, while no leader is visible to say who the members are, never below the current size.
     */
    public static int safeStatefulSetReplicas(int fromStatus, Observed o, Integer current) {
        if (o.leaderView() == null) return Math.max(fromStatus, current == null ? 0 : current);
        int highest = Stream.concat(o.members().stream(), o.readmitting().stream())
                .mapToInt(Names::ordinalOf).max().orElse(-1);
        return Math.max(fromStatus, highest + 1);
    }
}
