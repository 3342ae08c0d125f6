package io.queenkv.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.queenkv.operator.crd.ClusterPhase;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.MemberStatus;
import io.queenkv.operator.crd.OperationStep;
import io.queenkv.operator.crd.OperationType;
import io.queenkv.operator.crd.PendingOperation;
import io.queenkv.operator.crd.QueenKvClusterStatus;

/**
 * The planner from a table: what was observed, what status records and what the spec asks → the one
 * next action. No cluster: {@link Group} builds the observation.
 */
class PlannerTest {
    static final Instant NOW = Instant.parse("2026-12-03T11:00:00Z");
    static final String IMAGE = "ghcr.io/queenkv/node:0.1.0";
    static final String NEW_HASH = "h-next";

    /**
     * One case.
     *
     * @param expected the action, as {@link #describe} renders it
     * @param detail   text its message must contain (null: not checked)
     */
    record Row(SpecView spec, QueenKvClusterStatus status, Observed observed, String expected, String detail) {}

    static Stream<Arguments> table() {
        return Stream.of(
                row("paused: nothing, though an operation is recorded", spec(3).paused(), running(3, roll("n2", NEW_HASH)), Group.of(3),
                        "Paused", null),
                row("every member on the template: up to date", spec(3), running(3), Group.of(3), "UpToDate " + Group.HASH, null),
                row("no leader: wait for one", spec(3), running(3), Group.of(3).noLeader(), "Wait", "elect a leader"),
                row("creating, two of three ready: wait", spec(3), creating(3), Group.of(3).notReady("n2"), "Wait",
                        "waiting for 3 members to be ready (2 are)"),
                row("creating, all ready: done creating", spec(3), creating(3), Group.of(3), "UpToDate " + Group.HASH, null),
                row("settings the spec sets differ: apply them", spec(3).settings(new KvSettings().writeRate(50)), running(3), Group.of(3),
                        "ApplySettings", null),
                row("settings equal to those in force: nothing", spec(3).settings(new KvSettings().writeRate(Group.IN_FORCE.getWriteRate())),
                        running(3), Group.of(3), "UpToDate " + Group.HASH, null),
                row("a member re-admitted after a lost disk: wait for the node, no scaling", spec(5), running(3),
                        Group.of(3).readmitting("n2"), "Wait", "n2 to be re-admitted"),
                row("three of five: record a scale-up of n3", spec(5), running(3), Group.of(3), "Record ScaleUp n3", "scale up: adding n3"),
                row("scale-up while a member is down: wait", spec(5), running(3), Group.of(3).notReady("n1"), "Wait",
                        "scale up waits until every member is ready"),
                row("a gap below the highest member is filled first", spec(3), running(3), Group.members("n0", "n2"), "Record ScaleUp n1",
                        "adding back n1"),
                row("five to three: record a scale-down of the highest ordinal", spec(3), running(5), Group.of(5), "Record ScaleDown n4",
                        "scale down: removing n4"),
                row("scale-down while a member that stays is down: wait for it", spec(3), running(5), Group.of(5).notReady("n1"), "Wait",
                        "scale down waits until n1, which stays, serve again"),
                row("scale-down of a member that is down itself: go ahead", spec(3), running(5), Group.of(5).notReady("n4"),
                        "Record ScaleDown n4", null),
                row("five to three, n3 down, n4 serves: n3 leaves the group first (it goes with the cut, nothing waits for it)", spec(3),
                        running(5), Group.of(5).notReady("n3"), "Record ScaleDown n3", "removing n3 first, which does not serve"),
                row("five to three, n1 (stays) and n3 down: n3 leaves first, the quorum holds", spec(3), running(5),
                        Group.of(5).notReady("n1", "n3"), "Record ScaleDown n3", null),
                row("n3 already out of the group, its pod still there: n4 next", spec(3), running(5), Group.members("n0", "n1", "n2", "n4"),
                        "Record ScaleDown n4", "scale down: removing n4"),
                row("the group at three, the StatefulSet at four (n3 left before n4): shrink past n3", spec(3), running(4),
                        Group.of(3).podOutsideTheGroup(3), "Record ScaleDown n3", "n3 left the group; shrinking the StatefulSet past it"),
                row("scale-down that would lose the quorum: refused", spec(3), running(5), Group.of(5).notReady("n1", "n2"),
                        "WouldLoseQuorum", "removing n4 would leave 2 ready of 4 members (a quorum needs 3)"),
                row("new template: the highest follower first", spec(3).hash(NEW_HASH), running(3), Group.of(3), "Record Roll n2 " + NEW_HASH,
                        "rolling n2"),
                row("new template, n2 leads: the highest follower, n1", spec(3).hash(NEW_HASH), running(3), Group.of(3).leader("n2"),
                        "Record Roll n1 " + NEW_HASH, null),
                row("only the leader left on the old template: the leader", spec(3).hash(NEW_HASH), running(3),
                        Group.of(3).onHash(NEW_HASH, "n1", "n2"), "Record Roll n0 " + NEW_HASH, null),
                row("new template while n1 is down: n1 (a new image may be its fix)", spec(3).hash(NEW_HASH), running(3),
                        Group.of(3).notReady("n1"), "Record Roll n1 " + NEW_HASH, null),
                row("new template, the member that is down already on it: wait", spec(3).hash(NEW_HASH), running(3),
                        Group.of(3).onHash(NEW_HASH, "n1").notReady("n1"), "Wait", "the roll waits until every member is ready"),
                row("recorded operation without a leader: wait", spec(3), running(3, roll("n2", Group.HASH)), Group.of(3).noLeader(), "Wait",
                        "Roll of n2 waits for a leader"),
                row("recorded roll towards the spec's template: resume", spec(3).hash(NEW_HASH), running(3, roll("n2", NEW_HASH)),
                        Group.of(3), "Resume Roll n2", null),
                row("recorded roll towards a template the spec left: superseded", spec(3), running(3, roll("n2", NEW_HASH)),
                        Group.of(3).onHash(NEW_HASH, "n2").notReady("n2"), "Supersede Roll n2", "the pod template changed again"),
                row("scale-up whose member is not in yet, spec back down: superseded", spec(3), running(3, op(OperationType.ScaleUp, 3,
                        OperationStep.Recorded)), Group.of(3).podOutsideTheGroup(3), "Supersede ScaleUp n3", "spec.replicas is 3 now"),
                row("scale-up whose member is in, spec back down: finished first", spec(3), running(3, op(OperationType.ScaleUp, 3,
                        OperationStep.MemberAdded)), Group.of(4), "Resume ScaleUp n3", null),
                row("scale-down not yet removed, spec back up: superseded", spec(5), running(5, op(OperationType.ScaleDown, 4,
                        OperationStep.Recorded)), Group.of(5), "Supersede ScaleDown n4", "spec.replicas is 5 now"),
                row("scale-down whose removal is persisted, spec back up: finished first", spec(5), running(5, op(OperationType.ScaleDown, 4,
                        OperationStep.MemberRemoved)), Group.of(4), "Resume ScaleDown n4", null),
                row("scale-down recorded, spec unchanged: resume", spec(3), running(5, op(OperationType.ScaleDown, 4, OperationStep.Recorded)),
                        Group.of(5), "Resume ScaleDown n4", null),
                // spec.removeMembers
                row("five to three, n1 named and down: replace n1 before the shrink", spec(3).removeMembers(1), running(5),
                        Group.of(5).notReady("n1"), "Record Replace n1", "replacing n1 (spec.removeMembers)"),
                row("n1 named, serving, no shrink: replaced all the same", spec(3).removeMembers(1), running(3), Group.of(3),
                        "Record Replace n1", null),
                row("the lowest named ordinal below the cut first", spec(3).removeMembers(4, 2, 1), running(5), Group.of(5),
                        "Record Replace n1", null),
                row("n1 already replaced: the shrink goes on from the top", spec(3).removeMembers(1), replaced(running(5), 1), Group.of(5),
                        "Record ScaleDown n4", null),
                row("named at or above the cut: left to the scale-down", spec(3).removeMembers(3), running(5), Group.of(5),
                        "Record ScaleDown n4", null),
                row("named but not a member (not added yet): nothing to replace", spec(5).removeMembers(4), running(3), Group.of(3),
                        "Record ScaleUp n3", null),
                row("replacing n1 while n2 is down would lose the quorum: refused", spec(3).removeMembers(1), running(3),
                        Group.of(3).notReady("n2"), "WouldLoseQuorum", "removing n1 would leave 1 ready of 2 members"),
                row("a replacement waits for a member being re-admitted", spec(3).removeMembers(1), running(3), Group.of(3).readmitting("n2"),
                        "Wait", "re-admitted"),
                row("recorded replacement, still named: resume", spec(3).removeMembers(1), running(3, op(OperationType.Replace, 1,
                        OperationStep.Recorded)), Group.of(3), "Resume Replace n1", null),
                row("recorded replacement no longer named, not removed yet: superseded", spec(3), running(3, op(OperationType.Replace, 1,
                        OperationStep.LeadershipMoved)), Group.of(3), "Supersede Replace n1", "no longer names 1"),
                row("replacement no longer named, removal persisted: finished first", spec(3), running(3, op(OperationType.Replace, 1,
                        OperationStep.MemberRemoved)), Group.members("n0", "n2"), "Resume Replace n1", null),
                row("replacement whose member was added back, no longer named: finished", spec(3), running(3, op(OperationType.Replace, 1,
                        OperationStep.MemberAdded)), Group.of(3), "Resume Replace n1", null),
                // spec.replaceNotServingAfter (10m here, the default): a scale-down replaces a member that stays and has not served for longer
                row("five to three, n1 not ready for 11 minutes: replace n1 before the shrink", spec(3), notReadyFor(running(5), "n1", 11),
                        Group.of(5).notReady("n1"), "Record Replace n1",
                        "replacing n1 (not ready since 2026-12-03T10:49:00Z, longer than spec.replaceNotServingAfter 10m"),
                row("n1 not ready for 9 minutes: the scale-down waits, and says until when", spec(3), notReadyFor(running(5), "n1", 9),
                        Group.of(5).notReady("n1"), "Wait",
                        "n1 is replaced if it does not serve by 2026-12-03T11:01:00Z (spec.replaceNotServingAfter 10m)"),
                row("n1 recorded not ready an hour ago, its pod not ready again only 5 minutes ago (the operator was down through a"
                        + " recovery): the clock starts with the pod, the scale-down waits", spec(3), notReadyFor(running(5), "n1", 60),
                        Group.of(5).podNotReadySince("n1", NOW.minus(Duration.ofMinutes(5))), "Wait",
                        "n1 is replaced if it does not serve by 2026-12-03T11:05:00Z"),
                row("n1 recorded not ready 11 minutes ago, its pod not ready for an hour: status's later instant counts", spec(3),
                        notReadyFor(running(5), "n1", 11), Group.of(5).podNotReadySince("n1", NOW.minus(Duration.ofMinutes(60))),
                        "Record Replace n1", "not ready since 2026-12-03T10:49:00Z"),
                row("n1 not ready for a day, the setting off (0): the scale-down waits", spec(3).replaceNotServingAfter(Duration.ZERO),
                        notReadyFor(running(5), "n1", 1440), Group.of(5).notReady("n1"), "Wait", "spec.replaceNotServingAfter is 0"),
                row("n1 not ready for a day, no scale-down: not replaced (only named members are)", spec(5), notReadyFor(running(5), "n1", 1440),
                        Group.of(5).notReady("n1"), "UpToDate " + Group.HASH, null),
                row("n1 recorded not ready long ago but ready now: the shrink goes on", spec(3), notReadyFor(running(5), "n1", 60),
                        Group.of(5), "Record ScaleDown n4", null),
                row("the highest ordinal is down too: it goes first, nothing replaced", spec(3), notReadyFor(running(5), "n1", 60),
                        Group.of(5).notReady("n1", "n4"), "Record ScaleDown n4", null),
                row("n1 and n2 down for long (a shrink would lose the quorum): the longest down first, n2", spec(3),
                        notReadyFor(notReadyFor(running(5), "n1", 20), "n2", 30), Group.of(5).notReady("n1", "n2"), "Record Replace n2", null),
                row("n1 down for long, but its removal would lose the quorum: refused", spec(3),
                        notReadyFor(running(5), "n1", 60), Group.of(5).notReady("n1", "n2", "n3"), "WouldLoseQuorum",
                        "removing n1 would leave 2 ready of 4 members"),
                row("a named member goes before an automatic replacement", spec(3).removeMembers(2), notReadyFor(running(5), "n1", 60),
                        Group.of(5).notReady("n1"), "Record Replace n2", "spec.removeMembers"),
                row("recorded automatic replacement, n1 still down: resume", spec(3), notReadyFor(running(5, op(OperationType.Replace, 1,
                        OperationStep.Recorded)), "n1", 11), Group.of(5).notReady("n1"), "Resume Replace n1", null),
                row("recorded automatic replacement, n1 serves again: superseded", spec(3), notReadyFor(running(5, op(OperationType.Replace, 1,
                        OperationStep.Recorded)), "n1", 11), Group.of(5), "Supersede Replace n1", "no scale-down waits for n1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void plansTheNextAction(Row row) {
        Action action = Planner.next(row.spec(), row.status(), row.observed(), NOW);
        assertThat(describe(action)).isEqualTo(row.expected());
        if (row.detail() != null) assertThat(message(action)).contains(row.detail());
    }

    @Test
    void aRecordedOperationStartsNowAtStepRecorded() {
        Action action = Planner.next(spec(3).hash(NEW_HASH).build(), running(3), Group.of(3).observed(), NOW);
        assertThat(action).isInstanceOf(Action.Record.class);
        PendingOperation op = ((Action.Record) action).operation();
        assertThat(op.getStartedAt()).isEqualTo(NOW.toString());
        assertThat(op.getStep()).isEqualTo(OperationStep.Recorded);
        assertThat(op.getOrdinal()).isEqualTo(2);
    }

    @Test
    void theStatefulSetFollowsTheRecordedStep() {
        assertThat(Planner.statefulSetReplicas(running(5))).isEqualTo(5);
        assertThat(Planner.statefulSetReplicas(running(3, op(OperationType.ScaleUp, 3, OperationStep.Recorded)))).isEqualTo(4);
        assertThat(Planner.statefulSetReplicas(running(3, op(OperationType.ScaleUp, 1, OperationStep.Recorded)))).as("a gap").isEqualTo(3);
        assertThat(Planner.statefulSetReplicas(running(5, op(OperationType.ScaleDown, 4, OperationStep.LeadershipMoved)))).isEqualTo(5);
        assertThat(Planner.statefulSetReplicas(running(5, op(OperationType.ScaleDown, 4, OperationStep.MemberRemoved)))).isEqualTo(4);
        assertThat(Planner.statefulSetReplicas(running(3, roll("n2", NEW_HASH)))).isEqualTo(3);
        assertThat(Planner.statefulSetReplicas(running(3, op(OperationType.Replace, 1, OperationStep.PodDeleted)))).isEqualTo(3);
    }

    @Test
    void theStatefulSetNeverShrinksBelowAMemberNorWithoutALeader() {
        assertThat(Planner.safeStatefulSetReplicas(2, Group.of(3).observed(), 3)).isEqualTo(3);
        assertThat(Planner.safeStatefulSetReplicas(2, Group.members("n0", "n1").readmitting("n4").observed(), 5))
                .as("a member being re-admitted keeps its pod").isEqualTo(5);
        assertThat(Planner.safeStatefulSetReplicas(2, Group.of(3).noLeader().observed(), 3)).isEqualTo(3);
        assertThat(Planner.safeStatefulSetReplicas(4, Group.of(3).noLeader().observed(), 3)).isEqualTo(4);
        assertThat(Planner.safeStatefulSetReplicas(3, Group.of(3).observed(), 5)).as("a leader says who the members are").isEqualTo(3);
    }

    // ---------------------------------------------------------------------------------------------

    static String describe(Action a) {
        if (a instanceof Action.Paused) return "Paused";
        if (a instanceof Action.Wait) return "Wait";
        if (a instanceof Action.WouldLoseQuorum) return "WouldLoseQuorum";
        if (a instanceof Action.ApplySettings) return "ApplySettings";
        if (a instanceof Action.UpToDate u) return "UpToDate " + u.podTemplateHash();
        if (a instanceof Action.Record r) return "Record " + r.operation().getType() + " " + r.operation().getMember()
                + (r.operation().getTargetPodTemplateHash() == null ? "" : " " + r.operation().getTargetPodTemplateHash());
        if (a instanceof Action.Resume r) return "Resume " + r.operation().getType() + " " + r.operation().getMember();
        if (a instanceof Action.Supersede s) return "Supersede " + s.operation().getType() + " " + s.operation().getMember();
        throw new AssertionError("unknown action " + a);
    }

    static String message(Action a) {
        if (a instanceof Action.Wait w) return w.reason();
        if (a instanceof Action.WouldLoseQuorum q) return q.reason();
        if (a instanceof Action.Record r) return r.message();
        if (a instanceof Action.Supersede s) return s.why();
        return String.valueOf(a);
    }

    private static Arguments row(String name, SpecBuilder spec, QueenKvClusterStatus status, Group observed, String expected, String detail) {
        return Arguments.of(Named.of(name, new Row(spec.build(), status, observed.observed(), expected, detail)));
    }

    /** spec.replicas, on {@link Group#HASH}, no settings, not paused; each method changes one thing. */
    private static SpecBuilder spec(int replicas) {
        return new SpecBuilder(new SpecView(replicas, IMAGE, null, Group.HASH, false, List.of(), Duration.ofMinutes(10)));
    }

    record SpecBuilder(SpecView view) {
        SpecBuilder with(UnaryOperator<SpecView> change) { return new SpecBuilder(change.apply(view)); }

        SpecBuilder paused() { return with(v -> new SpecView(v.replicas(), v.image(), v.settings(), v.podTemplateHash(), true, v.removeMembers(), v.replaceNotServingAfter())); }

        SpecBuilder hash(String h) { return with(v -> new SpecView(v.replicas(), v.image(), v.settings(), h, v.paused(), v.removeMembers(), v.replaceNotServingAfter())); }

        SpecBuilder settings(KvSettings s) {
            return with(v -> new SpecView(v.replicas(), v.image(), s, v.podTemplateHash(), v.paused(), v.removeMembers(), v.replaceNotServingAfter()));
        }

        SpecBuilder removeMembers(Integer... ordinals) {
            return with(v -> new SpecView(v.replicas(), v.image(), v.settings(), v.podTemplateHash(), v.paused(), List.of(ordinals),
                    v.replaceNotServingAfter()));
        }

        SpecBuilder replaceNotServingAfter(Duration d) {
            return with(v -> new SpecView(v.replicas(), v.image(), v.settings(), v.podTemplateHash(), v.paused(), v.removeMembers(), d));
        }

        SpecView build() { return view; }
    }

    /** Bootstrapped with three, {@code replicas} members, {@code op} recorded (or none). */
    private static QueenKvClusterStatus running(int replicas, PendingOperation... op) {
        QueenKvClusterStatus s = new QueenKvClusterStatus();
        s.setBootstrapReplicas(3);
        s.setBootstrappedAt("2026-12-01T00:00:00Z");
        s.setReplicas(replicas);
        s.setPhase(op.length == 0 ? ClusterPhase.Running : ClusterPhase.Scaling);
        if (op.length > 0) s.setPendingOperation(op[0]);
        return s;
    }

    private static QueenKvClusterStatus replaced(QueenKvClusterStatus s, Integer... ordinals) {
        s.setReplacedMembers(List.of(ordinals));
        return s;
    }

    /** Status recorded {@code id} as not ready since {@code minutes} before {@link #NOW} ({@code status.members[].notReadySince}). */
    private static QueenKvClusterStatus notReadyFor(QueenKvClusterStatus s, String id, int minutes) {
        MemberStatus m = new MemberStatus(id, id + ":6634", id + ":6632", "follower", false);
        m.setNotReadySince(NOW.minus(Duration.ofMinutes(minutes)).toString());
        s.getMembers().add(m);
        return s;
    }

    private static QueenKvClusterStatus creating(int replicas) {
        QueenKvClusterStatus s = new QueenKvClusterStatus();
        s.setBootstrapReplicas(replicas);
        s.setReplicas(replicas);
        s.setPhase(ClusterPhase.Creating);
        return s;
    }

    private static PendingOperation op(OperationType type, int ordinal, OperationStep step) {
        PendingOperation op = new PendingOperation(type, "n" + ordinal, ordinal, "2026-12-03T10:00:00Z");
        op.setStep(step);
        return op;
    }

    private static PendingOperation roll(String member, String hash) {
        PendingOperation op = op(OperationType.Roll, Integer.parseInt(member.substring(1)), OperationStep.Recorded);
        op.setTargetPodTemplateHash(hash);
        return op;
    }
}
