package io.queenkv.node.raft;

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
 * <p>Thread-safe: applies and the question come from Ratis' apply thread, a written snapshot is
 * recorded by the snapshot writer.
 */
final class SnapshotSchedule {
    static final int LOG_BYTES_PER_SNAPSHOT_BYTE_DIVISOR = 4;

    private final long snapshotEvery;
    /** Bytes of log entries applied since this node started (or since the snapshot it loaded). */
    private long appliedLogBytes;
    /** The last snapshot written or loaded: its index, {@link #appliedLogBytes} when its state was frozen, its size. */
    private long lastIndex = -1, lastAppliedLogBytes, lastSnapshotBytes;

    SnapshotSchedule(long snapshotEvery) {
        if (snapshotEvery < 1) throw new IllegalArgumentException("snapshotEvery must be at least 1");
        this.snapshotEvery = snapshotEvery;
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
        return appliedIndex - lastIndex >= snapshotEvery
                && appliedLogBytes - lastAppliedLogBytes >= lastSnapshotBytes / LOG_BYTES_PER_SNAPSHOT_BYTE_DIVISOR;
    }

    /** A snapshot at {@code index}, frozen when {@code appliedLogBytesAtFreeze} log bytes were applied, was written. */
    synchronized void written(long index, long appliedLogBytesAtFreeze, long snapshotBytes) {
        if (index <= lastIndex) return;
        lastIndex = index;
        lastAppliedLogBytes = appliedLogBytesAtFreeze;
        lastSnapshotBytes = snapshotBytes;
    }

    /** The state was loaded from a snapshot at {@code index} (at start, or installed from the leader). */
    synchronized void loaded(long index, long snapshotBytes) {
        lastIndex = index;
        lastAppliedLogBytes = appliedLogBytes;
        lastSnapshotBytes = snapshotBytes;
    }
}
