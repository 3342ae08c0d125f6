package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.MD5FileUtil;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.kv.AnswerForm;
import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.EntryCodec;
import io.queenkv.node.kv.Expiry;
import io.queenkv.node.kv.JsonValue;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Outcome;
import io.queenkv.node.kv.OutcomeCodec;
import io.queenkv.node.kv.Result;
import io.queenkv.node.kv.Settings;

/**
 * Apply never throws: an entry that does not decode is skipped alike on every node, and the next one
 * applies. A snapshot is never claimed ahead of the applied state.
 */
class KvStateMachineTest {
    /** These tests apply no configuration entry, so no mark is ever looked at. */
    private static final PendingReadmission NO_MARK = new PendingReadmission(Path.of("target", "no-admission-mark"));
    /** These state machines are no leader's: they take no forwarded write calls and answer no read index query. */
    private static final KvStateMachine.AsLeader NOT_LEADER = new KvStateMachine.AsLeader() {
        @Override
        public CompletableFuture<byte[]> join(List<Entry.WriteCall> calls) {
            return CompletableFuture.failedFuture(new IllegalStateException("not the leader"));
        }

        @Override
        public CompletableFuture<byte[]> readIndex() {
            return CompletableFuture.completedFuture(EntryCodec.readIndexRefused());
        }

        @Override
        public void steppedDown() {
        }
    };

    static final long T0 = 1_790_000_000_000_000L;

    @Test
    void anUndecodableCommittedEntryIsSkippedAndTheNextOneApplies() {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        byte[] unknownKind = {EntryCodec.FORMAT_VERSION, 0, 0, 0, 0, 0, 0, 0, 1, 42, 0, 0};

        CompletableFuture<Message> skipped = sm.applyTransaction(committed(sm, 1, unknownKind));
        assertThat(skipped).isCompletedExceptionally();
        assertThat(sm.getLastAppliedTermIndex().getIndex()).isEqualTo(1);
        assertThat(sm.applyTransaction(committed(sm, 2, new byte[] {99})).isCompletedExceptionally()).isTrue();
        assertThat(sm.getLastAppliedTermIndex().getIndex()).isEqualTo(2);

        Entry put = new Entry.WriteCall(T0, "t", null, null,
                List.of(new Op.Put("ns", "k", JsonValue.of("1"), Expiry.FOREVER, null, false)));
        CompletableFuture<Message> applied = sm.applyTransaction(committed(sm, 3, EntryCodec.encode(put)));
        assertThat(applied).isCompleted().isNotCompletedExceptionally();
        assertThat(sm.getLastAppliedTermIndex().getIndex()).isEqualTo(3);
        assertThat(sm.withEngine(KvEngine::keyCount)).isEqualTo(1);
    }

    /**
     * A follower's linearizable read waits until it applied the leader's index. The wait ends with
     * the apply of that index, not before and not only when an index is applied twice (as Ratis 3.3's
     * own waiters behind queryStale do), and an index already applied needs no wait.
     */
    @Test
    void aWaitForAnAppliedIndexEndsWhenThatIndexIsApplied() {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        CompletableFuture<Void> two = sm.applied(2), three = sm.applied(3);
        sm.applyTransaction(committed(sm, 1, EntryCodec.encode(put("a"))));
        assertThat(two).isNotDone();
        sm.applyTransaction(committed(sm, 2, EntryCodec.encode(put("b"))));
        assertThat(two).isCompleted();
        assertThat(three).isNotDone();
        sm.notifyTermIndexUpdated(1, 3); // an entry that is not the state machine's: a configuration
        assertThat(three).isCompleted();
        assertThat(sm.applied(1)).isCompleted();
        assertThat(sm.applied(4)).isNotDone();
    }

    /**
     * Ratis installs a snapshot from the leader by pausing the state machine, moving the files into
     * its directory and only then reloading it; meanwhile the apply thread may ask for a snapshot. An
     * answer ahead of the applied index makes Ratis close the server ("Bug in StateMachine").
     */
    @Test
    void aSnapshotLandingFromTheLeaderIsNotClaimedBeforeItIsLoaded(@TempDir Path dir) throws IOException {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        RaftStorage storage = initialized(sm, dir);
        for (long i = 1; i <= 3; i++) sm.applyTransaction(committed(sm, i, EntryCodec.encode(put("k" + i))));

        sm.pause();
        File installed = new File(storage.getStorageDir().getStateMachineDir(), "snapshot.7_100");
        Files.writeString(installed.toPath(), "being installed");

        assertThat(sm.takeSnapshot()).as("answered while paused for an install").isEqualTo(-1);
        sm.close();
        assertThat(storage.getStorageDir().getStateMachineDir().list())
                .as("nothing written while paused").containsExactly("snapshot.7_100");
    }

    /**
     * Ratis asks for the latest snapshot on every batch a leader sends and every append a follower
     * takes; a member without one listed its directory each time. The directory is read at start and
     * when an installed snapshot is loaded, and otherwise only what this state machine wrote counts.
     */
    @Test
    void theLatestSnapshotIsReadFromTheDirectoryOnlyAtStartAndWhenOneIsLoaded(@TempDir Path dir) throws IOException {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        RaftStorage storage = initialized(sm, dir);
        for (long i = 1; i <= 3; i++) sm.applyTransaction(committed(sm, i, EntryCodec.encode(put("k" + i))));
        assertThat(sm.getLatestSnapshot()).as("none at start").isNull();
        File smDir = storage.getStorageDir().getStateMachineDir();
        File landed = new File(smDir, "snapshot.1_2");
        Files.writeString(landed.toPath(), "landed beside this state machine");
        assertThat(sm.getLatestSnapshot()).as("a file that landed is not looked for").isNull();

        sm.takeSnapshot();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(sm.getLatestSnapshot()).isNotNull());
        assertThat(sm.getLatestSnapshot().getIndex()).as("the one written counts at once").isEqualTo(3);

        sm.pause();
        Files.writeString(new File(smDir, "snapshot.7_100").toPath(), "installed from the leader");
        assertThat(sm.getLatestSnapshot().getIndex()).as("not before it is loaded").isEqualTo(3);
        sm.close();
    }

    @Test
    void aSnapshotIsAnsweredOnceWrittenAndNeverAheadOfTheAppliedIndex(@TempDir Path dir) throws IOException {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        RaftStorage storage = initialized(sm, dir);
        for (long i = 1; i <= 3; i++) sm.applyTransaction(committed(sm, i, EntryCodec.encode(put("k" + i))));
        Files.writeString(new File(storage.getStorageDir().getStateMachineDir(), "snapshot.7_100").toPath(), "a stray file");

        assertThat(sm.takeSnapshot()).as("the first write has only started").isLessThanOrEqualTo(3);
        await().atMost(Duration.ofSeconds(10)).until(() -> sm.takeSnapshot() == 3);
        sm.close();
    }

    /**
     * Ratis keeps asking while a snapshot is written in the background, as it is told the older index.
     * Once the write is done, the next question gets its index and starts nothing: the next snapshot
     * waits for {@code snapshotEvery} more entries (each snapshot was written twice).
     */
    @Test
    void aWrittenSnapshotIsNotFollowedAtOnceByAnother(@TempDir Path dir) throws IOException {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 3, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        RaftStorage storage = initialized(sm, dir);
        for (long i = 1; i <= 3; i++) sm.applyTransaction(committed(sm, i, EntryCodec.encode(put("k" + i))));
        sm.takeSnapshot();
        await().atMost(Duration.ofSeconds(10)).until(() -> sm.takeSnapshot() == 3);

        sm.applyTransaction(committed(sm, 4, EntryCodec.encode(put("k4"))));
        assertThat(sm.takeSnapshot()).isEqualTo(3);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .untilAsserted(() -> assertThat(snapshotFiles(storage)).containsExactly("snapshot.1_3"));

        for (long i = 5; i <= 6; i++) sm.applyTransaction(committed(sm, i, EntryCodec.encode(put("k" + i))));
        sm.takeSnapshot();
        await().atMost(Duration.ofSeconds(10)).until(() -> sm.takeSnapshot() == 6);
        sm.close();
    }

    /**
     * A snapshot is named only once it is whole, with its checksum (summed as it was written) already
     * beside it. Ratis cleans up after every question; old snapshots are cleaned up once after each new
     * one, and a cleanup with nothing new written does not look at the directory at all.
     */
    @Test
    void aSnapshotIsNamedWithItsChecksumAndOldOnesAreCleanedUpOnceAfterEachNewOne(@TempDir Path dir) throws IOException {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 3, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        RaftStorage storage = initialized(sm, dir);
        File smDir = storage.getStorageDir().getStateMachineDir();
        SnapshotRetentionPolicy keepOne = new SnapshotRetentionPolicy() {
            @Override
            public int getNumSnapshotsRetained() {
                return 1;
            }
        };
        for (long i = 1; i <= 3; i++) sm.applyTransaction(committed(sm, i, EntryCodec.encode(put("k" + i))));
        sm.takeSnapshot();
        await().atMost(Duration.ofSeconds(10)).until(() -> sm.takeSnapshot() == 3);
        File first = new File(smDir, "snapshot.1_3");
        assertThat(MD5FileUtil.readStoredMd5ForFile(first)).isEqualTo(MD5FileUtil.computeMd5ForFile(first));
        assertThat(smDir.list()).noneMatch(name -> name.endsWith(".tmp"));
        sm.getStateMachineStorage().cleanupOldSnapshots(keepOne);
        assertThat(snapshotFiles(storage)).containsExactly("snapshot.1_3");

        for (long i = 4; i <= 6; i++) sm.applyTransaction(committed(sm, i, EntryCodec.encode(put("k" + i))));
        sm.takeSnapshot();
        await().atMost(Duration.ofSeconds(10)).until(() -> sm.takeSnapshot() == 6);
        File strayChecksum = new File(smDir, "snapshot.1_1.md5"); // a cleanup that looks removes a checksum without its snapshot
        Files.writeString(strayChecksum.toPath(), "stray");
        sm.getStateMachineStorage().cleanupOldSnapshots(keepOne);
        assertThat(snapshotFiles(storage)).containsExactly("snapshot.1_6");
        assertThat(strayChecksum).doesNotExist();

        Files.writeString(strayChecksum.toPath(), "stray");
        sm.getStateMachineStorage().cleanupOldSnapshots(keepOne);
        assertThat(strayChecksum).as("nothing new was written: the directory is left alone").exists();
        sm.close();
    }

    /** A crash while a snapshot was being written leaves it unfinished; the next start removes that and keeps the finished ones. */
    @Test
    void unfinishedSnapshotFilesAreRemovedAtStart(@TempDir Path dir) throws IOException {
        KvStateMachine first = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        RaftStorage storage = initialized(first, dir);
        first.applyTransaction(committed(first, 1, EntryCodec.encode(put("k1"))));
        first.takeSnapshot();
        await().atMost(Duration.ofSeconds(10)).until(() -> first.takeSnapshot() == 1);
        first.close();
        storage.close();
        File smDir = storage.getStorageDir().getStateMachineDir();
        Files.writeString(new File(smDir, "snapshot.1_7.tmp").toPath(), "half a snapshot");
        Files.writeString(new File(smDir, "snapshot.1_7.md5.tmp").toPath(), "half a checksum");

        KvStateMachine second = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        RaftStorage again = initialized(second, dir, RaftStorage.StartupOption.RECOVER);
        assertThat(smDir.list()).contains("snapshot.1_1", "snapshot.1_1.md5").noneMatch(name -> name.endsWith(".tmp"));
        assertThat(second.withEngine(KvEngine::keyCount)).isEqualTo(1);
        second.close();
        again.close();
    }

    /**
     * A snapshot rewrites the whole state: with a large state it waits until the log since the last
     * one holds a quarter of that one's bytes, however many entries that takes. An admin's request
     * is written at once.
     */
    @Test
    void aLargeStateIsSnapshottedOnlyOnceTheLogHoldsAQuarterOfIt(@TempDir Path dir) throws IOException {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        RaftStorage storage = initialized(sm, dir);
        long index = 0;
        for (int i = 0; i < 400; i++) sm.applyTransaction(committed(sm, ++index, EntryCodec.encode(put("key-" + i))));
        sm.takeSnapshot();
        long first = index;
        await().atMost(Duration.ofSeconds(10)).until(() -> sm.takeSnapshot() == first);
        long snapshotBytes = new File(storage.getStorageDir().getStateMachineDir(), "snapshot.1_" + first).length();

        long logBytes = 0;
        while (true) {
            byte[] entry = EntryCodec.encode(put("key-" + index % 400));
            if ((logBytes + entry.length) * SnapshotSchedule.LOG_BYTES_PER_SNAPSHOT_BYTE_DIVISOR >= snapshotBytes) break;
            sm.applyTransaction(committed(sm, ++index, entry));
            logBytes += entry.length;
            assertThat(sm.takeSnapshot()).as("after %d log bytes of a %d-byte snapshot", logBytes, snapshotBytes).isEqualTo(first);
        }
        assertThat(index - first).as("entries the log took to reach a quarter").isGreaterThan(10);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                .untilAsserted(() -> assertThat(snapshotFiles(storage)).containsExactly("snapshot.1_" + first));

        long requested = index;
        sm.requestSnapshot(requested);
        sm.takeSnapshot();
        sm.requestSnapshot(requested); // asked again while it is written: no second snapshot
        await().atMost(Duration.ofSeconds(10)).until(() -> sm.takeSnapshot() == requested);
        sm.applyTransaction(committed(sm, ++index, EntryCodec.encode(put("key-0"))));
        assertThat(sm.takeSnapshot()).as("the request was met").isEqualTo(requested);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                .untilAsserted(() -> assertThat(snapshotFiles(storage)).containsExactlyInAnyOrder("snapshot.1_" + first, "snapshot.1_" + requested));

        for (int i = 0; i < 400; i++) sm.applyTransaction(committed(sm, ++index, EntryCodec.encode(put("key-" + i))));
        long later = index;
        await().atMost(Duration.ofSeconds(10)).until(() -> sm.takeSnapshot() == later);
        sm.close();
    }

    private static List<String> snapshotFiles(RaftStorage storage) {
        return java.util.Arrays.stream(storage.getStorageDir().getStateMachineDir().list())
                .filter(f -> f.startsWith("snapshot.") && !f.endsWith(".md5")).sorted().toList();
    }

    /**
     * The node's client sends a forwarded write again when no answer came in time; a copy that
     * reaches a new leader before it applied the first is appended too. Both copies apply as one.
     */
    @Test
    void aForwardedWriteSentTwiceAppliesOnce() {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        Entry.WriteCall call = new Entry.WriteCall(T0, "t", null, null,
                List.of(new Op.Incr("ns", "n", java.math.BigDecimal.ONE, null, null, Expiry.FOREVER, false)));
        byte[] forwarded = EntryCodec.encode(ReplicatedKv.forwardable(call));
        assertThat(EntryCodec.decode(forwarded)).isInstanceOfSatisfying(Entry.WriteCall.class,
                c -> assertThat(c.idempotencyKey()).startsWith(ReplicatedKv.FORWARDED_KEY_PREFIX).matches("\\u0001.*"));

        Message first = sm.applyTransaction(committed(sm, 1, forwarded)).join();
        Message second = sm.applyTransaction(committed(sm, 2, forwarded)).join();

        assertThat(second.getContent()).isEqualTo(first.getContent());
        Outcome read = sm.withEngine(e -> e.read("t", List.of(new Op.Get("ns", "n", false)), T0));
        assertThat(read).isInstanceOfSatisfying(Outcome.Completed.class, c -> assertThat(c.results().get(0))
                .isInstanceOfSatisfying(Result.GetResult.class, g -> assertThat(g.row().value()).isEqualTo(JsonValue.of("1"))));
    }

    /**
     * A leader that steps down answers its pending requests "not leader" although their entries may
     * be in the log, committed later by the next leader. Only what applies once however often it is
     * sent goes to the next leader again; a write call without an Idempotency-Key is answered 503.
     * (JepsenTest once read one put at two versions when every such call was sent again.)
     */
    @Test
    void afterLeadershipMovedOnlyWhatAppliesOnceIsSentAgain() {
        List<Op> ops = List.of(new Op.Incr("ns", "n", java.math.BigDecimal.ONE, null, null, Expiry.FOREVER, false));
        assertThat(ReplicatedKv.appliesOnceHoweverSent(new Entry.WriteCall(T0, "t", null, null, ops))).isFalse();
        assertThat(ReplicatedKv.appliesOnceHoweverSent(new Entry.WriteCall(T0, "t", "step-77", "f", ops))).isTrue();
        assertThat(ReplicatedKv.appliesOnceHoweverSent(new Entry.Sweep(T0, 10))).isTrue();
        assertThat(ReplicatedKv.appliesOnceHoweverSent(new Entry.ChangeSettings(T0, Settings.DEFAULTS))).isTrue();
    }

    /** Grouped calls apply as the same calls would one by one, each answered on its own; a retry in the group replays. */
    @Test
    void aGroupAppliesAsItsCallsWouldOneByOne() {
        List<Entry.WriteCall> calls = List.of(
                new Entry.WriteCall(T0, "t", "step-1", "f1", List.of(incr("n"))),
                new Entry.WriteCall(T0, "t", null, null, List.of(new Op.Put("ns", "k", JsonValue.of("1"), Expiry.FOREVER, 0L, false))),
                new Entry.WriteCall(T0, "t", null, null, List.of(new Op.Put("ns", "k", JsonValue.of("2"), Expiry.FOREVER, 0L, true))),
                new Entry.WriteCall(T0, "t", "step-1", "f1", List.of(incr("n"))),
                new Entry.WriteCall(T0, "t", null, null, List.of(incr("n"))));
        KvStateMachine oneByOne = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        List<Outcome> expected = new java.util.ArrayList<>();
        for (int i = 0; i < calls.size(); i++)
            expected.add(OutcomeCodec.decode(oneByOne.applyTransaction(committed(oneByOne, i + 1, EntryCodec.encode(calls.get(i)))).join().getContent().toByteArray()));

        for (AnswerForm form : AnswerForm.values()) {
            KvStateMachine grouped = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
            Message reply = grouped.applyTransaction(committed(grouped, 1, EntryCodec.encode(new Entry.WriteCalls(T0, calls, form)))).join();

            assertThat(OutcomeCodec.decodeEach(reply.getContent().toByteArray(), calls)).as(form.name())
                    .containsExactlyElementsOf(expected.stream().map(Optional::of).toList());
            List<Op> reads = List.of(new Op.Get("ns", "n", false), new Op.Get("ns", "k", false));
            Outcome groupedRead = grouped.withEngine(e -> e.read("t", reads, T0));
            assertThat(groupedRead).isEqualTo(oneByOne.withEngine(e -> e.read("t", reads, T0)));
            assertThat(grouped.getLastAppliedTermIndex().getIndex()).isEqualTo(1);
        }
        assertThat(expected.get(2)).isInstanceOf(Outcome.PreconditionFailed.class);
    }

    /** A put's reply as sent leaves out the value its call sent; the node that sent the call fills it back in. */
    @Test
    void aGroupAnsweredAsSentRepliesWithoutTheValuesItsCallsSent() {
        String big = "\"" + "v".repeat(8192) + "\"";
        List<Entry.WriteCall> calls = List.of(
                new Entry.WriteCall(T0, "t", "a", "fa", List.of(new Op.Put("ns", "a", JsonValue.of(big), Expiry.FOREVER, null, false))),
                new Entry.WriteCall(T0, "t", "b", "fb", List.of(new Op.Put("ns", "b", JsonValue.of(big), Expiry.FOREVER, null, false))));
        int[] sizes = new int[2];
        for (AnswerForm form : AnswerForm.values()) {
            KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
            byte[] reply = sm.applyTransaction(committed(sm, 1, EntryCodec.encode(new Entry.WriteCalls(T0, calls, form)))).join()
                    .getContent().toByteArray();
            sizes[form.ordinal()] = reply.length;
            assertThat(OutcomeCodec.decodeEach(reply, calls)).allSatisfy(o -> assertThat(((Outcome.Completed) o.orElseThrow()).results())
                    .singleElement().extracting(r -> ((Result.WriteResult) r).value()).isEqualTo(JsonValue.of(big)));
        }
        assertThat(sizes[AnswerForm.FULL.ordinal()]).isGreaterThan(2 * 8192);
        assertThat(sizes[AnswerForm.AS_SENT.ordinal()]).isLessThan(100);
    }

    /** An earlier version would skip a grouped entry: the leader refuses one until every member showed it applies them. */
    @Test
    void theLeaderTakesGroupsIntoTheLogOnlyOnceEveryMemberAppliesThem() throws IOException {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0, 1, SnapshotSchedule.Turn.ALONE, new LeftoverAppenders(), NO_MARK, NOT_LEADER);
        byte[] group = EntryCodec.encode(new Entry.WriteCalls(0, List.of(
                new Entry.WriteCall(0, "t", null, null, List.of(incr("a"))), new Entry.WriteCall(0, "t", null, null, List.of(incr("b")))),
                AnswerForm.FULL));
        byte[] single = EntryCodec.encode(new Entry.WriteCall(0, "t", null, null, List.of(incr("a"))));

        assertThat(sm.startTransaction(proposal(group)).getException()).isNotNull();
        assertThat(sm.startTransaction(proposal(single)).getException()).isNull();
        sm.allowWriteCalls(true);
        TransactionContext accepted = sm.startTransaction(proposal(group));
        assertThat(accepted.getException()).isNull();
        Entry logged = EntryCodec.decode(accepted.getStateMachineLogEntry().getLogData().toByteArray());
        assertThat(logged.instant()).isEqualTo(T0);
        assertThat(((Entry.WriteCalls) logged).answers()).as("until every member reads answers as sent").isEqualTo(AnswerForm.FULL);
        sm.allowAnswersAsSent(true);
        logged = EntryCodec.decode(sm.startTransaction(proposal(group)).getStateMachineLogEntry().getLogData().toByteArray());
        assertThat(((Entry.WriteCalls) logged).answers()).isEqualTo(AnswerForm.AS_SENT);
        assertThat(EntryCodec.decode(sm.startTransaction(proposal(single)).getStateMachineLogEntry().getLogData().toByteArray()))
                .as("a single call stays as it is").isInstanceOf(Entry.WriteCall.class);

        assertThat(sm.query(Message.valueOf(ByteString.copyFrom(EntryCodec.FORMAT_PROBE))).join().getContent().toByteArray())
                .isEqualTo(EntryCodec.FORMAT_PROBE_ANSWER);
    }

    private static Op.Incr incr(String key) {
        return new Op.Incr("ns", key, java.math.BigDecimal.ONE, null, null, Expiry.FOREVER, false);
    }

    private static RaftClientRequest proposal(byte[] data) {
        return RaftClientRequest.newBuilder().setClientId(ClientId.randomId()).setServerId(RaftPeerId.valueOf("n1"))
                .setGroupId(RaftGroupId.randomId()).setCallId(1).setMessage(Message.valueOf(ByteString.copyFrom(data)))
                .setType(RaftClientRequest.writeRequestType()).build();
    }

    /** The state machine on its own storage under {@code dir}, for a real server that is built and never started. */
    private static RaftStorage initialized(KvStateMachine sm, Path dir) throws IOException {
        return initialized(sm, dir, RaftStorage.StartupOption.FORMAT);
    }

    private static RaftStorage initialized(KvStateMachine sm, Path dir, RaftStorage.StartupOption option) throws IOException {
        RaftStorage storage = RaftStorage.newBuilder().setDirectory(dir.toFile())
                .setOption(option).setStorageFreeSpaceMin(SizeInBytes.ONE_MB).build();
        storage.initialize();
        RaftProperties p = new RaftProperties();
        GrpcConfigKeys.Server.setPort(p, 0);
        RaftServer server = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf("n1")).setStateMachine(sm).setProperties(p).build();
        sm.initialize(server, RaftGroupId.randomId(), storage);
        return storage;
    }

    private static Entry put(String key) {
        return new Entry.WriteCall(T0, "t", null, null,
                List.of(new Op.Put("ns", key, JsonValue.of("1"), Expiry.FOREVER, null, false)));
    }

    private static TransactionContext committed(KvStateMachine sm, long index, byte[] data) {
        LogEntryProto entry = LogEntryProto.newBuilder().setTerm(1).setIndex(index)
                .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder().setLogData(ByteString.copyFrom(data))).build();
        return TransactionContext.newBuilder().setServerRole(RaftPeerRole.FOLLOWER).setStateMachine(sm).setLogEntry(entry).build();
    }
}
