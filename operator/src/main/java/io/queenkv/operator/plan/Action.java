package io.queenkv.operator.plan;

import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.PendingOperation;

/** The one thing a reconcile does next, as the {@link Planner} decides it; the reconciler carries it out. */
public sealed interface Action {

    /** The pause annotation is set: change nothing, keep status true. */
    record Paused() implements Action {}

    /** Nothing to do but look again: a pod to start, a member to catch up, a leader to be elected. */
    record Wait(String reason) implements Action {}

    /** The spec asks to remove a member, and doing it now would take the quorum with it: needs a person. */
    record WouldLoseQuorum(String reason) implements Action {}

    /** Commit the cluster-wide KV limits the spec sets through the leader (no restart). */
    record ApplySettings(KvSettings settings) implements Action {}

    /** Write {@code operation} to status and do nothing else: the next reconcile acts on it. */
    record Record(PendingOperation operation, String message) implements Action {}

    /** Take the next step of the recorded {@code operation}. */
    record Resume(PendingOperation operation) implements Action {}

    /** Drop the recorded {@code operation}: the spec has moved on ({@code why}); the next reconcile plans afresh. */
    record Supersede(PendingOperation operation, String why) implements Action {}

    /** Every member is in the group the spec asks for, on its template: record that in status. */
    record UpToDate(String podTemplateHash, String image) implements Action {}
}
