package io.queenkv.node.kv;

/**
 * How a completed write call's answer is encoded ({@link OutcomeCodec}) where it is kept or sent: the reply of
 * a grouped log entry, the answer recorded for Idempotency-Key retries. Chosen by the leader for each grouped
 * entry ({@link Entry.WriteCalls#answers}), so every member records the same.
 */
public enum AnswerForm {
    /** Every field written out: decodes without the call. */
    FULL,
    /** What the call holds (op names, keys, a put's value) left out: decodes only with the call's ops. */
    AS_SENT
}
