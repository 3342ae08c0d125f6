package io.queenkv.node.kv;

import java.util.List;

/**
 * One Raft log entry. {@code instant} (epoch microseconds) is stamped by the leader when it accepts
 * the entry; applying uses it and never reads a clock.
 */
public sealed interface Entry {
    long instant();

    Entry withInstant(long instant);

    /**
     * A call with at least one write. {@code idempotencyKey} and {@code fingerprint} are null when the
     * caller sent no {@code Idempotency-Key}; the fingerprint identifies the call's content.
     */
    record WriteCall(long instant, String tenant, String idempotencyKey, String fingerprint, List<Op> ops)
            implements Entry {
        public WriteCall { ops = List.copyOf(ops); }

        public WriteCall withInstant(long instant) {
            return new WriteCall(instant, tenant, idempotencyKey, fingerprint, ops);
        }
    }

    /**
     * Write calls that reached the leader together, in one log entry (group commit): each applies in
     * turn, as if it were an entry of its own at this entry's instant, and is answered on its own.
     * One Raft round for many calls is the point; nothing else ties them together. {@code answers}:
     * how each call's answer is encoded in the reply and in its idempotency record, which the leader
     * sets ({@link AnswerForm#AS_SENT} only once every member reads it).
     */
    record WriteCalls(long instant, List<WriteCall> calls, AnswerForm answers) implements Entry {
        public WriteCalls {
            calls = calls.stream().map(c -> c.withInstant(instant)).toList();
        }

        public WriteCalls withInstant(long instant) {
            return new WriteCalls(instant, calls, answers);
        }
    }

    /** Deletes up to {@code maxRows} rows that are expired at the entry's instant. */
    record Sweep(long instant, int maxRows) implements Entry {
        public Sweep withInstant(long instant) {
            return new Sweep(instant, maxRows);
        }
    }

    /**
     * The settings a new cluster starts with: in force only while no settings were ever committed,
     * so a leader elected before it applied an earlier change can never undo that change.
     */
    record SeedSettings(long instant, Settings settings) implements Entry {
        public SeedSettings withInstant(long instant) {
            return new SeedSettings(instant, settings);
        }
    }

    /** Puts new cluster-wide settings in force from this entry's index on. */
    record ChangeSettings(long instant, Settings settings) implements Entry {
        public ChangeSettings withInstant(long instant) {
            return new ChangeSettings(instant, settings);
        }
    }
}
