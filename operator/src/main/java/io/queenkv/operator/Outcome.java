package io.queenkv.operator;

import io.queenkv.operator.model.Model;

/**
 * What the step a reconcile took did, or is waiting for: status and the next look follow from it.
 *
 * @param busy           more to do: look again
 * @param soon           a step was recorded or done: look again right away
 * @param progressReason the Progressing reason when something moved (null: nothing did)
 * @param degradedReason set when the step is refused (e.g. it would lose the quorum)
 */
record Outcome(boolean busy, boolean soon, String progressReason, String degradedReason, String message) {
    static Outcome idle() { return new Outcome(false, false, null, null, "nothing to do"); }

    static Outcome waiting(String message) { return new Outcome(true, false, QueenKvReconciler.REASON_WAITING, null, message); }

    static Outcome advanced(String reason, String message) { return new Outcome(true, true, reason, null, message); }

    static Outcome refused(String degradedReason, String message) { return new Outcome(true, false, null, degradedReason, message); }

    static Outcome paused() {
        return new Outcome(false, false, QueenKvReconciler.REASON_PAUSED, null, "paused: the " + Model.PAUSED_ANNOTATION
                + " annotation is \"true\"; the operator changes nothing until it is removed");
    }
}
