package io.queenkv.node.raft;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Pattern;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.DurableFiles;
import io.queenkv.node.kv.CallRules;
import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.EntryCodec;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Outcome;
import io.queenkv.node.kv.AnswerForm;
import io.queenkv.node.kv.OutcomeCodec;
import io.queenkv.node.kv.Settings;
import io.queenkv.node.kv.SnapshotCodec;

/**
 * The Ratis adapter around {@link KvEngine}: the leader stamps each entry's instant, every node
 * applies entries to the engine, reads run against local state after Ratis' ReadIndex barrier, and
 * snapshots are the engine's state in one file with an MD5 beside it and a CRC inside.
 */
final class KvStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(KvStateMachine.class);
    /** A snapshot is forced to disk in slices of this size as it is written (see {@link DurableFiles#forcedAsWritten}). */
    static final long SNAPSHOT_FORCE_EVERY_BYTES = 8L << 20;
    /**
     * Ratis cleans up old snapshot files after every {@link #takeSnapshot}, which it calls after every
     * apply while a snapshot is being written (it is told the older index): each time it listed the
     * directory, read every checksum and warned of the file being named. Only a newly written
     * snapshot makes an old one removable, so cleaning up happens once after each, never during a write.
     */
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage() {
        /**
         * What was last loaded from the directory or written, once the directory was read. Ratis'
         * storage lists the directory on every lookup while it holds no snapshot, and Ratis looks up
         * the latest snapshot on every batch a leader sends and every append a follower takes: until
         * a member's first snapshot that was 2% of the leader's CPU under puts. The directory gains a
         * snapshot only through this state machine (writes, the restore) or an install from the
         * leader, which is loaded by {@link #reinitialize} before it counts.
         */
        private volatile SingleFileSnapshotInfo known;
        private volatile boolean read;

        @Override
        public synchronized SingleFileSnapshotInfo updateLatestSnapshot(SingleFileSnapshotInfo info) {
            SingleFileSnapshotInfo latest = super.updateLatestSnapshot(info);
            known = latest;
            read = true;
            return latest;
        }

        @Override
        public SingleFileSnapshotInfo getLatestSnapshot() {
            return read ? known : super.getLatestSnapshot();
        }

        @Override
        public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
            if (newSnapshotToCleanUpAfter()) super.cleanupOldSnapshots(policy);
        }
    };
    /** The snapshot after which old ones were last cleaned up ({@link #storage}). */
    private long cleanedUpAfter = -1;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Settings seed;
    private final LongSupplier clockMicros;
    private KvEngine engine;
    /** Writes snapshot files off the apply thread, one at a time ({@link #takeSnapshot}); also the lock of {@link #writing}. */
    private final ExecutorService snapshotWriter = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "queen-kv-snapshot-writer");
        t.setDaemon(true);
        return t;
    });
    private Future<?> writing;
    /**
     * The newest snapshot this state machine wrote or loaded, never ahead of its applied state. Not
     * read from the directory: a snapshot installed from the leader lands there before it is loaded,
     * and answering its index to Ratis would claim a state not yet applied.
     */
    private long snapshotIndex = -1;
    /** A backup the group being created starts from, until {@link #initialize} has used it. */
    private volatile Path restoreOnCreation;
    /** The last instant this node stamped as leader; stamps never go backwards. */
    private long lastStamp;
    private volatile boolean writeCallsAllowed;
    private volatile boolean answersAsSentAllowed;
    private final SnapshotSchedule schedule;
    private final LeftoverAppenders leftoverAppenders;
    private final PendingReadmission pendingReadmission;
    /** Ratis closed the server this state machine belonged to; a reopened group needs a new one. */
    private volatile boolean closed;
    /** An admin asked for a snapshot of at least this index ({@link #requestSnapshot}); -1 when none was asked for. */
    private volatile long snapshotRequestedAt = -1;
    private final AsLeader asLeader;
    /** Who waits for this node to apply an index ({@link #applied}), by that index. */
    private final TreeMap<Long, CompletableFuture<Void>> appliedWaiters = new TreeMap<>();

    /** What this node does as leader for the queries followers send it, and what it learns when it stops leading. */
    interface AsLeader {
        /**
         * Takes the write calls a follower forwarded as a query ({@link EntryCodec#forwardedCalls})
         * into this node's group commit, so they share its next log entry. Completes with their
         * outcomes as {@link OutcomeCodec#encodeEach} writes them; fails, having taken none, on a node
         * that is not the leader.
         */
        CompletableFuture<byte[]> join(List<Entry.WriteCall> calls);

        /**
         * Answers a follower's {@link EntryCodec#READ_INDEX_QUERY}: this node's applied index once its
         * read barrier passed after the query arrived, or a refusal; never a failure.
         */
        CompletableFuture<byte[]> readIndex();

        /** This node stopped leading. */
        void steppedDown();
    }

    /**
     * @param snapshotEvery the fewest entries applied between two snapshots ({@link SnapshotSchedule})
     * @param snapshotTurn this member's turn for writing them among the group's members
     * @param leftoverAppenders told when this node's term as leader becomes ready
     * @param pendingReadmission cleared as a configuration that counts this member as a voter is applied
     * @param asLeader answers followers' queries to this node as leader, and learns when it stops leading
     */
    KvStateMachine(Settings seed, LongSupplier clockMicros, long snapshotEvery, SnapshotSchedule.Turn snapshotTurn,
                   LeftoverAppenders leftoverAppenders, PendingReadmission pendingReadmission, AsLeader asLeader) {
        this.seed = seed;
        this.clockMicros = clockMicros;
        this.engine = new KvEngine(seed);
        this.schedule = new SnapshotSchedule(snapshotEvery, snapshotTurn);
        this.leftoverAppenders = leftoverAppenders;
        this.pendingReadmission = pendingReadmission;
        this.asLeader = asLeader;
    }

    boolean closed() {
        return closed;
    }

    /** Ratis calls this on the apply thread once the first entry of this node's term as leader is applied. */
    @Override
    public void notifyLeaderReady() {
        try {
            leftoverAppenders.noteAtLeaderReady(getServer().join().getDivision(getGroupId()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not check this leader's log appenders: {}", e.toString());
        }
    }

    /**
     * Ratis calls this on the apply thread as a configuration entry is applied (committed). A member
     * that waited to be admitted stops counting itself as one being re-admitted here, before it can
     * answer ready: a member an admin removes as soon as it caught up must not take the removal for a
     * re-admission a leader left half-way, and ask to be taken back in.
     */
    @Override
    public void notifyConfigurationChanged(long term, long index, RaftConfigurationProto conf) {
        try {
            pendingReadmission.clearIfVoting(getServer().join().getDivision(getGroupId()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not clear this member's mark of a pending admission (its duties retry): {}", e.toString());
        }
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        removeUnfinishedSnapshots(raftStorage.getStorageDir().getStateMachineDir());
        Path backup = restoreOnCreation;
        restoreOnCreation = null;
        if (backup != null && storage.getLatestSnapshot() == null) seedFrom(backup);
        loadSnapshot(storage.getLatestSnapshot());
        if (getLifeCycleState() == LifeCycle.State.NEW) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    /**
     * The group this node is about to create starts from {@code backup} ({@code QUEEN_KV_RESTORE_FROM}):
     * its first state is the backup, as a snapshot at {@link #RESTORED_AT}, so its log starts after it and
     * a member that joins later receives the restored state as a snapshot from the leader.
     */
    void restoreOnCreation(Path backup) {
        restoreOnCreation = backup;
    }

    /**
     * Where a restored group's state stands: term 0, which no leader ever has, so the members' probes
     * tell a group restored from a backup (and not yet led) from one a leader has committed to.
     */
    static final TermIndex RESTORED_AT = TermIndex.valueOf(0, 0);

    private void seedFrom(Path backup) throws IOException {
        File file = storage.getSnapshotFile(RESTORED_AT.getTerm(), RESTORED_AT.getIndex());
        File temp = new File(file.getPath() + ".tmp");
        Files.copy(backup, temp.toPath(), StandardCopyOption.REPLACE_EXISTING);
        DurableFiles.force(temp.toPath());
        try (InputStream in = new BufferedInputStream(Files.newInputStream(temp.toPath()), 1 << 16)) {
            SnapshotCodec.read(in, seed); // the copy, checked whole before it becomes the group's state
        }
        MD5Hash md5 = MD5FileUtil.computeMd5ForFile(temp);
        publish(temp, file, md5);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), RESTORED_AT));
        LOG.info("the cluster starts from the backup {}", backup);
    }

    /** Ratis pauses the state machine before it installs a snapshot from the leader, then reinitializes it. */
    @Override
    public void pause() {
        synchronized (snapshotWriter) { // no write starts after this, so none lands in the installed directory
            if (getLifeCycleState() == LifeCycle.State.RUNNING) {
                getLifeCycle().transition(LifeCycle.State.PAUSING);
                getLifeCycle().transition(LifeCycle.State.PAUSED);
            }
        }
        awaitSnapshotWrite();
    }

    @Override
    public void reinitialize() throws IOException {
        loadSnapshot(storage.loadLatestSnapshot());
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    /** Runs {@code query} against the engine under the read lock. */
    <T> T withEngine(Function<KvEngine, T> query) {
        lock.readLock().lock();
        try {
            return query.apply(engine);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * A Raft message over {@code bytes} without copying them: every array given here is freshly
     * encoded and never written again, and a copy of each write's entry and answer (on every member)
     * is a copy of all the values it carries.
     */
    static Message messageOf(byte[] bytes) {
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(bytes));
    }

    /**
     * Leader only: decode and check the proposed entry, then stamp its instant, never behind the last
     * stamp or the applied state. What does not decode or breaks a rule never enters the log.
     */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        byte[] data = request.getMessage().getContent().toByteArray();
        Entry entry;
        try {
            entry = EntryCodec.decode(data);
            if (entry instanceof Entry.WriteCalls && !writeCallsAllowed)
                throw new IllegalStateException("a member of the group may not apply grouped write calls yet");
            CallRules.checkEntry(entry, withEngine(KvEngine::settings));
        } catch (RuntimeException refused) {
            TransactionContext refusal = TransactionContext.newBuilder().setStateMachine(this).setClientRequest(request).build();
            refusal.setException(new IOException("entry refused: " + refused.getMessage()));
            return refusal;
        }
        long instant;
        synchronized (this) {
            long applied = withEngine(KvEngine::lastInstant);
            lastStamp = Math.max(Math.max(lastStamp, applied), clockMicros.getAsLong());
            instant = lastStamp;
        }
        byte[] stamped = EntryCodec.stampInstant(data, instant); // data is this call's own copy of the request
        if (entry instanceof Entry.WriteCalls && answersAsSentAllowed) EntryCodec.answeredAsSent(stamped);
        return TransactionContext.newBuilder()
                .setStateMachine(this)
                .setClientRequest(request)
                .setLogData(UnsafeByteOperations.unsafeWrap(stamped))
                .build();
    }

    /**
     * Applies a committed entry. Never throws: an entry this version cannot decode (written by a
     * leader that did not check it) is skipped the same way on every node, so the log stays
     * applicable and the node keeps serving; the proposer gets a failed reply.
     */
    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto log = trx.getLogEntry();
        schedule.applied(log.getStateMachineLogEntry().getLogData().size());
        Entry entry;
        try {
            entry = EntryCodec.decode(log.getStateMachineLogEntry().getLogData().toByteArray());
        } catch (RuntimeException undecodable) {
            LOG.error("skipping log entry {} (term {}): it does not decode: {}", log.getIndex(), log.getTerm(), undecodable.getMessage());
            lock.writeLock().lock();
            try {
                updateLastAppliedTermIndex(log.getTerm(), log.getIndex());
            } finally {
                lock.writeLock().unlock();
            }
            return CompletableFuture.failedFuture(new IOException("log entry " + log.getIndex() + " was skipped: it does not decode"));
        }
        if (entry instanceof Entry.WriteCalls group) return applyEach(log, group);
        byte[] reply;
        lock.writeLock().lock();
        try {
            reply = OutcomeCodec.encode(engine.apply(log.getIndex(), entry));
        } catch (RuntimeException failed) {
            // The engine rolled the call back; it is deterministic, so every node fails it alike.
            LOG.error("skipping log entry {} (term {}): applying it failed", log.getIndex(), log.getTerm(), failed);
            reply = null;
        } finally {
            updateLastAppliedTermIndex(log.getTerm(), log.getIndex());
            lock.writeLock().unlock();
        }
        if (reply == null) return CompletableFuture.failedFuture(new IOException("log entry " + log.getIndex() + " could not be applied"));
        return CompletableFuture.completedFuture(messageOf(reply));
    }

    /**
     * Applies each call of a group as if it were an entry of its own: one that fails (the engine rolls
     * it back) is answered as not applied, the same way on every node, and the others stand.
     */
    private CompletableFuture<Message> applyEach(LogEntryProto log, Entry.WriteCalls group) {
        List<Optional<Outcome>> outcomes = new ArrayList<>(group.calls().size());
        lock.writeLock().lock();
        try {
            for (Entry.WriteCall call : group.calls()) {
                try {
                    outcomes.add(Optional.of(engine.apply(log.getIndex(), call, group.answers())));
                } catch (RuntimeException failed) {
                    LOG.error("skipping a call of log entry {} (term {}): applying it failed", log.getIndex(), log.getTerm(), failed);
                    outcomes.add(Optional.empty());
                }
            }
        } finally {
            updateLastAppliedTermIndex(log.getTerm(), log.getIndex());
            lock.writeLock().unlock();
        }
        return CompletableFuture.completedFuture(messageOf(OutcomeCodec.encodeEach(outcomes, group.calls(), group.answers())));
    }

    /**
     * Whether this node, as leader, takes {@link Entry.WriteCalls} entries into the log: only once
     * every member of the group showed it applies them ({@link EntryFormats}).
     */
    void allowWriteCalls(boolean allowed) {
        writeCallsAllowed = allowed;
    }

    boolean writeCallsAllowed() {
        return writeCallsAllowed;
    }

    /**
     * Whether this node, as leader, marks {@link Entry.WriteCalls} entries to be answered {@link AnswerForm#AS_SENT} (replies
     * and idempotency records without the values the calls sent): only once every member of the group showed it reads
     * that form ({@link EntryFormats}).
     */
    void allowAnswersAsSent(boolean allowed) {
        answersAsSentAllowed = allowed;
    }

    /** Ratis calls this as this node's term as leader ends. */
    @Override
    public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
        asLeader.steppedDown();
    }

    boolean answersAsSentAllowed() {
        return answersAsSentAllowed;
    }

    /**
     * Completes once this node has applied up to {@code index}. (Ratis 3.3's own waiters, behind
     * {@code queryStale}, are completed only when an index is applied twice.)
     */
    CompletableFuture<Void> applied(long index) {
        synchronized (appliedWaiters) {
            if (getLastAppliedTermIndex().getIndex() >= index) return CompletableFuture.completedFuture(null);
            return appliedWaiters.computeIfAbsent(index, i -> new CompletableFuture<>());
        }
    }

    @Override
    protected boolean updateLastAppliedTermIndex(TermIndex applied) {
        boolean moved = super.updateLastAppliedTermIndex(applied);
        completeWaitersUpTo(applied.getIndex());
        return moved;
    }

    @Override
    protected void setLastAppliedTermIndex(TermIndex applied) {
        super.setLastAppliedTermIndex(applied);
        completeWaitersUpTo(applied.getIndex());
    }

    private void completeWaitersUpTo(long index) {
        if (appliedWaiters == null) return; // Ratis' constructor sets the first index, before this class's fields exist
        List<CompletableFuture<Void>> done = new ArrayList<>();
        synchronized (appliedWaiters) {
            if (appliedWaiters.isEmpty()) return;
            SortedMap<Long, CompletableFuture<Void>> reached = appliedWaiters.headMap(index + 1);
            done.addAll(reached.values());
            reached.clear();
        }
        for (CompletableFuture<Void> waiter : done) waiter.complete(null);
    }

    /** Reads the local state now; linearizable only after a ReadIndex barrier ({@link ReadBarrier}). */
    Outcome.Completed read(String tenant, List<Op> ops) {
        return withEngine(e -> e.read(tenant, ops, clockMicros.getAsLong()));
    }

    /**
     * A read-only call, reached only after Ratis' linearizable ReadIndex barrier; or one of the
     * queries members send the leader: the format probe, forwarded write calls, a read index query.
     */
    @Override
    public CompletableFuture<Message> query(Message request) {
        try {
            byte[] bytes = request.getContent().toByteArray();
            if (EntryCodec.isFormatProbe(bytes))
                return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(EntryCodec.FORMAT_PROBE_ANSWER)));
            if (EntryCodec.isForwardedCalls(bytes))
                return asLeader.join(EntryCodec.decodeForwardedCalls(bytes)).thenApply(KvStateMachine::messageOf);
            if (EntryCodec.isReadIndexQuery(bytes))
                return asLeader.readIndex().thenApply(KvStateMachine::messageOf);
            EntryCodec.ReadQuery q = EntryCodec.decodeQuery(bytes);
            byte[] reply = OutcomeCodec.encode(read(q.tenant(), q.ops()));
            return CompletableFuture.completedFuture(messageOf(reply));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Ratis calls this on the thread that applies entries, so writing the file here would stall
     * every write for as long as it takes (seconds for a million keys). Instead the state and its
     * index are frozen under the read lock (a copy of references, linear in the rows) and written
     * by {@link #snapshotWriter} while applies go on. Ratis is told only of snapshots that are
     * complete on disk: this answers the newest one, and while a write is under way it answers that
     * same index again (Ratis asks again on later applies and purges the log up to what it is told).
     * While paused for an install from the leader nothing is written.
     *
     * <p>Once a write completes, the next question is answered with its index and no new write
     * starts until {@link SnapshotSchedule} says one is due: Ratis, told the older index all along,
     * asks again at once, and starting another then wrote every snapshot twice.
     */
    @Override
    public long takeSnapshot() {
        synchronized (snapshotWriter) {
            if (writing != null && !writing.isDone()) return writtenIndex();
            if (getLifeCycleState() != LifeCycle.State.RUNNING) return writtenIndex();
            KvEngine.Frozen state;
            TermIndex last;
            long logBytes;
            lock.readLock().lock();
            try {
                last = getLastAppliedTermIndex();
                if (last == null || last.getIndex() < 0 || last.getIndex() <= writtenIndex()) return writtenIndex();
                boolean requested = snapshotRequestedAt > writtenIndex();
                if (!requested && !schedule.due(last.getIndex())) return writtenIndex();
                state = engine.freeze();
                logBytes = schedule.appliedLogBytes();
            } finally {
                lock.readLock().unlock();
            }
            writing = snapshotWriter.submit(() -> write(state, last, logBytes));
            return writtenIndex();
        }
    }

    /**
     * Until a snapshot of at least {@code index} is written, one is written whenever Ratis asks,
     * whatever {@link SnapshotSchedule} says (an admin's request). Asking again for the same index
     * while its snapshot is being written starts no second one.
     */
    void requestSnapshot(long index) {
        snapshotRequestedAt = Math.max(snapshotRequestedAt, index);
    }

    /** The engine's state and the log index it is at, frozen together under the read lock. */
    record FrozenAt(KvEngine.Frozen state, long index) {}

    FrozenAt freeze() {
        lock.readLock().lock();
        try {
            TermIndex last = getLastAppliedTermIndex();
            return new FrozenAt(engine.freeze(), last == null ? -1 : last.getIndex());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The index of the newest snapshot this state machine wrote or loaded, -1 when there is none. */
    long writtenIndex() {
        synchronized (snapshotWriter) {
            return snapshotIndex;
        }
    }

    private void write(KvEngine.Frozen state, TermIndex last, long appliedLogBytes) {
        try {
            File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
            File temp = new File(file.getPath() + ".tmp");
            MessageDigest digest = MD5FileUtil.newMD5(); // summed as written, not by reading the file again
            try (OutputStream out = new BufferedOutputStream(new DigestOutputStream(
                    DurableFiles.forcedAsWritten(temp.toPath(), SNAPSHOT_FORCE_EVERY_BYTES), digest), 1 << 16)) {
                SnapshotCodec.write(state, out);
            }
            DurableFiles.force(temp.toPath());
            MD5Hash md5 = MD5Hash.newInstance(digest.digest());
            publish(temp, file, md5);
            synchronized (snapshotWriter) {
                // Never step back (an install from the leader waits for this write; see pause()).
                if (last.getIndex() > snapshotIndex) {
                    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
                    snapshotIndex = last.getIndex();
                    schedule.written(last.getIndex(), appliedLogBytes, file.length());
                }
            }
            LOG.info("snapshot at log index {} written ({} keys)", last.getIndex(), state.keyCount());
        } catch (IOException | RuntimeException e) {
            LOG.error("writing the snapshot at log index {} failed; the log is kept, the next one is tried later", last.getIndex(), e);
        }
    }

    /** A snapshot file or its checksum not yet named ({@link #publish}): what a crash in the middle of writing one leaves. */
    private static final Pattern UNFINISHED_SNAPSHOT = Pattern.compile("snapshot\\.\\d+_\\d+(\\.md5)?\\.tmp");

    /** Nothing is being written at start; what a crash left half-written is removed, or it would stay for good. */
    private static void removeUnfinishedSnapshots(File stateMachineDir) throws IOException {
        File[] unfinished = stateMachineDir.listFiles((dir, name) -> UNFINISHED_SNAPSHOT.matcher(name).matches());
        if (unfinished == null) return;
        for (File f : unfinished) {
            Files.deleteIfExists(f.toPath());
            LOG.info("removed {}, a snapshot file left unfinished", f.getName());
        }
    }

    /**
     * Gives a snapshot file, complete and on disk as {@code temp}, its name: its checksum first (Ratis
     * writes that file and forces it to disk), then the name, by an atomic rename, and the directory
     * is forced so both names survive a crash. Only then may Ratis hear of the snapshot: it purges the
     * log up to it, and a snapshot still in the page cache would not replace that log after a power cut.
     */
    private static void publish(File temp, File file, MD5Hash md5) throws IOException {
        MD5FileUtil.saveMD5File(file, md5);
        DurableFiles.moveIntoPlace(temp.toPath(), file.toPath());
    }

    /** Whether a snapshot was written since old ones were last cleaned up, and none is being written now. */
    private boolean newSnapshotToCleanUpAfter() {
        synchronized (snapshotWriter) {
            if (writing != null && !writing.isDone()) return false;
            if (snapshotIndex == cleanedUpAfter) return false;
            cleanedUpAfter = snapshotIndex;
            return true;
        }
    }

    /** Waits for a snapshot being written, so none lands in the middle of an install or after close. */
    private void awaitSnapshotWrite() {
        Future<?> pending;
        synchronized (snapshotWriter) {
            pending = writing;
        }
        if (pending == null) return;
        try {
            pending.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            // write() logs its own failures
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        awaitSnapshotWrite();
        snapshotWriter.shutdown();
        super.close();
    }

    private void loadSnapshot(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) return;
        File file = snapshot.getFile().getPath().toFile();
        if (snapshot.getFile().getFileDigest() != null) MD5FileUtil.verifySavedMD5(file, snapshot.getFile().getFileDigest());
        KvEngine restored;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file.toPath()), 1 << 16)) {
            restored = SnapshotCodec.read(in, seed);
        }
        lock.writeLock().lock();
        try {
            engine = restored;
            setLastAppliedTermIndex(snapshot.getTermIndex());
        } finally {
            lock.writeLock().unlock();
        }
        synchronized (snapshotWriter) {
            snapshotIndex = snapshot.getIndex();
            schedule.loaded(snapshot.getIndex(), file.length());
        }
    }
}
