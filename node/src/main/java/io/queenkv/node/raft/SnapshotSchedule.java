package io.queenkv.node.raft;

import java.util.Collection;
import java.util.List;

/**
 * When this node writes its next snapshot. Ratis asks for one once {@code snapshotEvery} entries
 * were applied since the last snapshot it was told of, and again after every later apply for as long
 * as it is told the same index; this answers whether to write one now.
 *
 * <p>A snapshot is due when both hold since the last one written or loaded:
 * <ul>
 * <li>at least {@code snapshotEvery} entries were applied, and</li>
 * <li>the log entries applied hold at least {@code 1/}{@link #LOG_BYTES_PER_SNAPSHOT_BYTE_DIVISOR} of
 *     that snapshot's bytes.</li>
 * </ul>
 * A snapshot costs time in proportion to the whole state, so a fixed count of entries alone makes a
 * large state cost more per write the larger it grows (a million keys were rewritten every 10,000
 * entries). With the second rule each byte written to the log costs at most four bytes of snapshot
 * writing, whatever the state's size; the log kept beside the snapshot stays within a quarter of it,
 * which bounds what a restart replays. A snapshot asked for by an admin is written regardless.
 *
 * <p>Members take turns ({@link Turn}). Every member applies the same entries, so by these rules
 * alone all of them wrote their snapshot at the same index: on shared cores and disks the whole group
 * stalled at once (puts per 5 s fell by about 40% every 30 s in the bench), and across machines a
 * write's quorum waited on members that were all busy writing. So the log's indices go round in
 * cycles of {@code snapshotEvery}, each member has its own part of every cycle, and a member whose
 * snapshot is due waits for its part: at most {@code snapshotEvery} more entries.
 *
 * <p>Thread-safe: applies and the question come from Ratis' apply thread, a written snapshot is
 * recorded by the snapshot writer.
 */
final class SnapshotSchedule {
    static final int LOG_BYTES_PER_SNAPSHOT_BYTE_DIVISOR = 4;

    private final long snapshotEvery;
    private final Turn turn;
    /** The index at which the two rules last began to hold, waiting for this member's turn; -1 when they do not hold. */
    private long dueSince = -1;
    /** Bytes of log entries applied since this node started (or since the snapshot it loaded). */
    private long appliedLogBytes;
    /** The last snapshot written or loaded: its index, {@link #appliedLogBytes} when its state was frozen, its size. */
    private long lastIndex = -1, lastAppliedLogBytes, lastSnapshotBytes;

    /**
     * This member's part of each cycle of {@code snapshotEvery} indices: the {@code slot}-th of
     * {@code slots} equal parts. {@link #ALONE} has the whole cycle.
     */
    record Turn(int slot, int slots) {
        static final Turn ALONE = new Turn(0, 1);

        Turn {
            if (slots < 1 || slot < 0 || slot >= slots) throw new IllegalArgumentException("slot " + slot + " of " + slots);
        }

        /** The turn of member {@code self} among {@code members} (by the order of their ids); a member not listed goes alone. */
        static Turn of(String self, Collection<String> members) {
            List<String> ids = members.stream().distinct().sorted().toList();
            int slot = ids.indexOf(self);
            return slot < 0 ? ALONE : new Turn(slot, ids.size());
        }

        boolean includes(long index, long snapshotEvery) {
            return Math.floorMod(index, snapshotEvery) * slots / snapshotEvery == slot;
        }
    }

    SnapshotSchedule(long snapshotEvery, Turn turn) {
        if (snapshotEvery < 1) throw new IllegalArgumentException("snapshotEvery must be at least 1");
        this.snapshotEvery = snapshotEvery;
        this.turn = turn;
    }

    /** An entry of {@code bytes} was applied. */
    synchronized void applied(long bytes) {
        appliedLogBytes += bytes;
    }

    /** The log position a snapshot frozen now stands at, to hand back to {@link #written}. */
    synchronized long appliedLogBytes() {
        return appliedLogBytes;
    }

    /** Whether to write a snapshot of the state applied up to {@code appliedIndex}. */
    synchronized boolean due(long appliedIndex) {
        boolean rulesHold = appliedIndex - lastIndex >= snapshotEvery
                && appliedLogBytes - lastAppliedLogBytes >= lastSnapshotBytes / LOG_BYTES_PER_SNAPSHOT_BYTE_DIVISOR;
        if (!rulesHold) {
            dueSince = -1;
            return false;
        }
        if (dueSince < 0) dueSince = appliedIndex;
        // Applies come in batches, which may step over this member's part: then it goes anyway.
        return turn.includes(appliedIndex, snapshotEvery) || appliedIndex - dueSince >= snapshotEvery;
    }

    /** A snapshot at {@code index}, frozen when {@code appliedLogBytesAtFreeze} log bytes were applied, was written. */
    synchronized void written(long index, long appliedLogBytesAtFreeze, long snapshotBytes) {
        if (index <= lastIndex) return;
        lastIndex = index;
        lastAppliedLogBytes = appliedLogBytesAtFreeze;
        lastSnapshotBytes = snapshotBytes;
        dueSince = -1;
    }

    /** The state was loaded from a snapshot at {@code index} (at start, or installed from the leader). */
    synchronized void loaded(long index, long snapshotBytes) {
        lastIndex = index;
        lastAppliedLogBytes = appliedLogBytes;
        lastSnapshotBytes = snapshotBytes;
        dueSince = -1;
    }
}
