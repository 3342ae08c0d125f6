package io.queenkv.node.raft;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.protocol.exceptions.ReadIndexException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.FileUtils;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.access.Access;
import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.identity.MemberIdentity;
import io.queenkv.node.kv.AnswerForm;
import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.EntryCodec;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Outcome;
import io.queenkv.node.kv.OutcomeCodec;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;
import io.queenkv.node.kv.Setting;
import io.queenkv.node.tls.NodeTls;

/**
 * This node's Raft member and its client: writes become one log entry each, reads pass the
 * linearizable ReadIndex barrier of this node. Failures surface as {@link Refusal}s with the
 * contract's 503 reasons.
 */
public final class ReplicatedKv implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedKv.class);
    private static final TimeDuration REQUEST_TIMEOUT = TimeDuration.valueOf(3, TimeUnit.SECONDS);
    private static final Duration BARRIER_WAIT = Duration.ofSeconds(10);

    private final NodeConfig config;
    private final MemberIdentity identity;
    private final RaftGroupId groupId;
    /** Replaced only when Ratis closed the group's server and it is reopened ({@link #reopenClosedGroup}). */
    private volatile KvStateMachine stateMachine;
    private final LongSupplier clockMicros;
    private final LeftoverAppenders leftoverAppenders = new LeftoverAppenders();
    private final PendingReadmission pendingReadmission;
    /** A closed group taken off the server to be opened again, until it is ({@link #reopenClosedGroup}). */
    private volatile RaftGroup reopening;
    private final RaftServer server;
    private final RaftClient client;
    private final RaftPeerId selfId;
    private final Admission admission;
    private final EntryFormats entryFormats;
    private final Parameters rpcParameters;
    /** Confirms this node still leads for linearizable reads; Ratis' gRPC transport shows it the leader's replies ({@link LeaderRepliesRpc}). */
    private final LeadershipCheck leadership;
    /** This node's identity as a client of its own Raft server ({@link #submitLocally}). */
    private final ClientId localClientId = ClientId.randomId();
    private final AtomicLong localCallIds = new AtomicLong();
    /**
     * The most Raft calls this node runs at once. Above the HTTP layer's node-wide bound on calls in
     * progress, so a call it admitted finds a thread; a call that gets none is refused (503), never queued.
     */
    public static final int MAX_CONCURRENT_CALLS = 256;

    /**
     * Runs the client's blocking calls. Blocking calls are unary and unordered, so a slow call never
     * holds up another (the ordered async stream does); callers wait on the future with a deadline
     * and cancel it (interrupting the call) when they give up.
     */
    private final ThreadPoolExecutor callers = new ThreadPoolExecutor(0, MAX_CONCURRENT_CALLS, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "queen-kv-raft-call");
                t.setDaemon(true);
                return t;
            });

    private final GroupCommit calls = new GroupCommit(new GroupSender());
    /** Starts ReadIndex rounds and answers the reads that waited for them, off Ratis' threads ({@link ReadBarrier}). */
    private final ExecutorService readRounds = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "queen-kv-read-rounds");
        t.setDaemon(true);
        return t;
    });
    private final ReadBarrier reads = new ReadBarrier(this::readIndexRound, readRounds);

    /**
     * Starts this node's Raft server with no group but the one its storage holds: the group is never
     * created here from configuration (a member that lost its disk would otherwise vote with an
     * empty log). {@link Admission} creates it for a new cluster, or the leader re-admits this member.
     *
     * @param tls the node's TLS identity, or null when TLS is off (plaintext Raft)
     */
    public ReplicatedKv(NodeConfig config, MemberIdentity identity, NodeTls tls, LongSupplier clockMicros) throws IOException {
        this.config = config;
        this.identity = identity;
        this.groupId = RaftGroupId.valueOf(identity.groupUuid());
        this.selfId = RaftPeerId.valueOf(config.nodeId());
        this.leadership = new LeadershipCheck(selfId, this::membership);
        this.rpcParameters = rpcParameters(tls);
        LeaderRepliesRpc.attach(rpcParameters, leadership);
        this.clockMicros = clockMicros;
        this.pendingReadmission = new PendingReadmission(config.dataDir());
        this.stateMachine = newStateMachine();
        dropPlaceholderGroup(config.dataDir());
        // No group at build: Ratis then starts only the groups found in the data dir, and the group is
        // created or joined later (Admission). A placeholder group would hold a log of its own, with a
        // write buffer sized for the largest entry (65 MiB of direct memory) and a thread, for nothing.
        this.server = RaftServer.newBuilder()
                .setServerId(selfId)
                .setProperties(serverProperties(config))
                .setStateMachineRegistry(this::stateMachineFor)
                .setParameters(rpcParameters)
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
        server.start();
        // The client knows every configured peer and always this node, whose reads it serves.
        List<RaftPeer> known = new ArrayList<>(toPeers(config.peers()));
        if (!config.initialMember()) known.addAll(toPeers(List.of(config.self())));
        this.client = newClient(known, RetryPolicies.retryUpToMaximumCountWithFixedSleep(16, TimeDuration.valueOf(500, TimeUnit.MILLISECONDS)));
        this.admission = new Admission(this);
        this.entryFormats = new EntryFormats(this);
    }

    /** The group this node creates next starts from {@code backup} (see {@link Admission}). */
    void restoreOnCreation(Path backup) {
        stateMachine.restoreOnCreation(backup);
    }

    /** Where this member stands in its group: a member, or waiting to create or be admitted to it. */
    public String admissionState() {
        return admission.state().wire;
    }

    /** Ids of the members being re-admitted after they lost their data (learners of the configuration). */
    public List<String> readmitting() {
        return membership().map(d -> Readmission.readmitting(d.getRaftConf())).orElse(List.of());
    }

    /**
     * Earlier versions started the server with Ratis' empty group, which left its directory in the
     * data dir; Ratis would start it again from there. It never held an entry.
     */
    private static void dropPlaceholderGroup(Path dataDir) throws IOException {
        File placeholder = dataDir.resolve(RaftGroupId.emptyGroupId().getUuid().toString()).toFile();
        if (placeholder.isDirectory()) FileUtils.deleteFully(placeholder);
    }

    /**
     * Only this cluster's group may live on this server: a leader of another cluster cannot add its
     * group here.
     */
    private StateMachine stateMachineFor(RaftGroupId requested) {
        if (!requested.equals(groupId))
            throw new IllegalArgumentException("this node is a member of cluster " + identity.clusterId() + " and hosts no other group");
        if (stateMachine.closed()) stateMachine = newStateMachine();
        return stateMachine;
    }

    private KvStateMachine newStateMachine() {
        return new KvStateMachine(config.seedSettings(), clockMicros, config.snapshotEveryEntries(),
                SnapshotSchedule.Turn.of(config.nodeId(), config.peers().stream().map(NodeConfig.Peer::id).toList()),
                leftoverAppenders, pendingReadmission, new KvStateMachine.AsLeader() {
                    @Override
                    public CompletableFuture<byte[]> join(List<Entry.WriteCall> calls) {
                        return joinForwarded(calls);
                    }

                    @Override
                    public CompletableFuture<byte[]> readIndex() {
                        return answerReadIndex();
                    }

                    @Override
                    public void steppedDown() {
                        leadership.steppedDown();
                    }
                });
    }

    /** The state machine of the group's current server. */
    KvStateMachine stateMachine() {
        return stateMachine;
    }

    /**
     * When Ratis closed this node's server for the group (it does so to a server outside the
     * configuration that stands for election), opens it again from its storage, with a new state
     * machine, as a restart would: it starts outside the group. Answers whether it did.
     */
    boolean reopenClosedGroup() throws IOException {
        if (server.getLifeCycleState() != LifeCycle.State.RUNNING) return false;
        RaftGroup group = reopening;
        if (group == null) {
            RaftServer.Division closed;
            try {
                closed = server.getDivision(groupId);
            } catch (IOException e) {
                return false; // no group at all
            }
            if (closed.getInfo().getLifeCycleState() != LifeCycle.State.CLOSED) return false;
            group = closed.getGroup();
            // Neither deleted nor moved aside: the storage stays where the group is opened again.
            RaftClientReply removed = server.groupManagement(GroupManagementRequest.newRemove(ClientId.randomId(), selfId, 0, groupId, false, false));
            if (!removed.isSuccess()) throw removed.getException();
            reopening = group;
        }
        RaftClientReply added = server.groupManagement(GroupManagementRequest.newAdd(ClientId.randomId(), selfId, 0, group, false));
        if (!added.isSuccess()) throw added.getException();
        reopening = null;
        return true;
    }

    /** A Raft client of this cluster's group that knows {@code peers}; every client of this node is made here. */
    RaftClient newClient(List<RaftPeer> peers, RetryPolicy retry) {
        return newClient(peers, retry, REQUEST_TIMEOUT.toLong(TimeUnit.MILLISECONDS));
    }

    /** As {@link #newClient(List, RetryPolicy)}, waiting up to {@code timeoutMs} for each answer. */
    RaftClient newClient(List<RaftPeer> peers, RetryPolicy retry, long timeoutMs) {
        RaftProperties properties = clientProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(timeoutMs, TimeUnit.MILLISECONDS));
        return RaftClient.newBuilder()
                .setProperties(properties)
                .setParameters(rpcParameters)
                .setRaftGroup(RaftGroup.valueOf(groupId, peers))
                .setLeaderId(null)
                .setRetryPolicy(retry)
                .build();
    }

    private static RaftProperties serverProperties(NodeConfig config) {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, new LeaderRepliesRpc());
        GrpcConfigKeys.Server.setHost(p, config.bindAddress());
        GrpcConfigKeys.Server.setPort(p, config.raftPort());
        RaftServerConfigKeys.setStorageDir(p, List.of(config.dataDir().toAbsolutePath().toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(1, TimeUnit.SECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2, TimeUnit.SECONDS));
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        // A follower appends every batch it is sent. With Ratis 3.3's composed appends, a batch that
        // starts where one still being written starts is answered as appended without being
        // appended; the leader then takes the follower for matched past its log and never sends it
        // the gap, so the follower stays behind for good (FollowerCatchUpTest).
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, config.snapshotEveryEntries());
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        // Every snapshot purges the closed segments it covers. With Ratis' default gap of 1,024
        // entries a purge that found no closed segment still counted as done at its index, so a
        // segment closed just after it stayed until 1,024 more entries came (RaftLogTest).
        RaftServerConfigKeys.Log.setPurgeGap(p, 1);
        // Sized for the largest body any committed setting allows, so no entry is ever too large for Ratis.
        SizeInBytes max = SizeInBytes.valueOf(Setting.MAX_BODY_BYTES.max + (1 << 20));
        // A segment holds at least the largest entry; larger segments only delay purging the log after a snapshot.
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(max.getSize() + (1 << 20)));
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, max);
        // A linearizable read waits for the next append to a majority (LeadershipCheck). Ratis keeps at
        // least 1 ms between two appends to a follower by default, and with one reader its appenders
        // spent 30% of their time in that sleep; with none, the reads of one client came 9–18% faster
        // and the writes moved within the machine's noise (README "Figures").
        RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p, TimeDuration.ZERO);
        // A write is one log entry. With log metadata on, Ratis appends an entry of its own to the
        // log each time the commit index moves (and replicates it, and every member forces it to
        // disk): two entries and two fsyncs per write for one client. Raft needs no persisted commit
        // index; a restarted member learns it from the leader (RaftLogTest).
        RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(max.getSize() + 8));
        GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(max.getSize() * 2));
        return p;
    }

    /**
     * With TLS, one mutual-TLS configuration for every gRPC service of Ratis — the server (peer)
     * service, the client service and the admin service — and for this node's clients of them.
     */
    private static Parameters rpcParameters(NodeTls tls) {
        Parameters p = new Parameters();
        if (tls != null) GrpcConfigKeys.TLS.setConf(p, new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true));
        return p;
    }

    /** What every Raft client of this node needs besides its properties: the TLS configuration. */
    Parameters rpcParameters() {
        return rpcParameters;
    }

    private static RaftProperties clientProperties() {
        RaftProperties p = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, REQUEST_TIMEOUT);
        GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(256L << 20));
        return p;
    }

    static List<RaftPeer> toPeers(List<NodeConfig.Peer> peers) {
        List<RaftPeer> out = new ArrayList<>();
        for (NodeConfig.Peer p : peers)
            out.add(RaftPeer.newBuilder().setId(p.id()).setAddress(p.raftAddress())
                    .setClientAddress(p.raftAddress()).setAdminAddress(p.raftAddress())
                    .setDataStreamAddress(p.httpAddress()).build());
        return out;
    }

    /**
     * A member's HTTP address. Queen KV does not use Ratis data streams, so the peer's data-stream
     * address field carries the HTTP address, and membership changes keep it with the peer.
     */
    public static String httpAddressOf(RaftPeer peer) {
        return peer.getDataStreamAddress();
    }

    /**
     * Proposes a write; completes with the engine's outcome once it is applied. A write call joins
     * {@link GroupCommit}; on the leader its group goes straight to this node's Raft server, elsewhere
     * the node's client sends it to the leader. When leadership moved during the call, it goes again
     * only if that cannot apply it twice ({@link #appliesOnceHoweverSent}).
     */
    public Future<Outcome> write(Entry entry) {
        if (entry instanceof Entry.WriteCall call) {
            Entry.WriteCall sent = isLeader() ? call : forwardable(call);
            return calls.add(new GroupCommit.Pending(sent, EntryCodec.encode(sent), new CompletableFuture<>()));
        }
        // Sweeps and settings: the leader's own entries, the same however often they apply.
        Message message = KvStateMachine.messageOf(EntryCodec.encode(entry));
        if (!isLeader()) return submit(() -> outcomeOf(sendToLeader(message)));
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        submitLocally(message, RaftClientRequest.writeRequestType()).whenComplete((reply, failure) -> {
            Throwable why = failureOf(reply, failure);
            if (why == null) {
                complete(outcome, reply);
            } else if (notLeader(why)) {
                try {
                    outcome.completeAsync(() -> outcomeOf(sendToLeader(message)), callers);
                } catch (RejectedExecutionException e) {
                    outcome.completeExceptionally(tooManyCalls());
                }
            } else {
                outcome.completeExceptionally(unavailable(why));
            }
        });
        return outcome;
    }

    /** Where {@link GroupCommit} sends its groups: decided when a group goes, as leadership may have moved since a call joined. */
    private final class GroupSender implements GroupCommit.Sender {
        @Override
        public boolean groupsAllowed() {
            return isLeader() ? stateMachine.writeCallsAllowed() : System.nanoTime() - groupsRefusedAt > GROUPS_REFUSED_PAUSE_NANOS;
        }

        @Override
        public CompletionStage<?> send(List<GroupCommit.Pending> group) {
            return isLeader() ? sendLocally(group) : forward(group);
        }
    }

    /**
     * How long a follower sends calls one by one after the leader refused a group: a leader of an
     * earlier version, or one that has not heard from every member yet ({@link EntryFormats}).
     */
    private static final long GROUPS_REFUSED_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private volatile long groupsRefusedAt = System.nanoTime() - GROUPS_REFUSED_PAUSE_NANOS - 1;

    /** One group (or one call) to this node's own Raft server. */
    private CompletionStage<?> sendLocally(List<GroupCommit.Pending> group) {
        return submitLocally(KvStateMachine.messageOf(encode(group)), RaftClientRequest.writeRequestType())
                .whenComplete((reply, failure) -> {
                    Throwable why = failureOf(reply, failure);
                    if (why == null) {
                        answer(group, reply);
                    } else if (notLeader(why)) {
                        // The leader is elsewhere now. The entry may be in the log all the same (Ratis answers a
                        // stepping-down leader's pending requests so), so only what applies once goes again.
                        for (GroupCommit.Pending p : group) {
                            if (appliesOnceHoweverSent(p.call())) forward(List.of(p));
                            else p.outcome().completeExceptionally(unavailable(why));
                        }
                    } else if (group.size() > 1 && refused(why)) {
                        // Refused before it entered the log (a member that cannot apply groups appeared,
                        // or one call breaks a rule): each call goes again on its own and gets its own answer.
                        for (GroupCommit.Pending p : group) sendLocally(List.of(p));
                    } else {
                        for (GroupCommit.Pending p : group) p.outcome().completeExceptionally(unavailable(why));
                    }
                });
    }

    /**
     * One group (or one call) to the leader, on a thread of {@link #callers} that blocks on the
     * node's client. When every caller in the group gave up, the call is cancelled and its thread freed.
     */
    private CompletionStage<?> forward(List<GroupCommit.Pending> group) {
        CompletableFuture<Void> answered = new CompletableFuture<>();
        Future<?> task;
        try {
            task = callers.submit(() -> {
                try {
                    forwardNow(group);
                } finally {
                    answered.complete(null);
                }
            });
        } catch (RejectedExecutionException e) {
            for (GroupCommit.Pending p : group) p.outcome().completeExceptionally(tooManyCalls());
            return CompletableFuture.completedFuture(null);
        }
        AtomicInteger waiting = new AtomicInteger(group.size());
        for (GroupCommit.Pending p : group)
            p.outcome().whenComplete((o, t) -> {
                if (p.outcome().isCancelled() && waiting.decrementAndGet() == 0) {
                    task.cancel(true);
                    answered.complete(null);
                }
            });
        return answered;
    }

    private void forwardNow(List<GroupCommit.Pending> group) {
        // A call that joined while this node was leader has no key yet; a resend must not apply it twice.
        List<byte[]> encoded = new ArrayList<>(group.size());
        for (GroupCommit.Pending p : group)
            encoded.add(p.call().idempotencyKey() == null ? EntryCodec.encode(forwardable(p.call())) : p.encoded());
        if (joinLeadersGroup(group, encoded)) return;
        RaftClientReply reply = null;
        Throwable failure;
        try {
            reply = client.io().send(KvStateMachine.messageOf(encoded.size() == 1 ? encoded.get(0) : EntryCodec.group(encoded)));
            failure = reply.isSuccess() ? null : reply.getException();
        } catch (IOException | RuntimeException e) { // the blocking client throws what the leader answered, a refusal too
            failure = e;
        }
        if (failure == null) {
            answer(group, reply);
        } else if (group.size() > 1 && refused(failure)) {
            groupsRefusedAt = System.nanoTime();
            for (GroupCommit.Pending p : group) forward(List.of(p)); // every call has a key: a resend applies once
        } else {
            for (GroupCommit.Pending p : group) p.outcome().completeExceptionally(unavailable(failure));
        }
    }

    /**
     * Sends the calls to the leader as a query that puts them in the leader's own group commit
     * ({@link #joinForwarded}), so they share its next log entry instead of taking one of their own:
     * with clients on every member, one Raft round then serves the calls of all of them. Answers
     * whether the calls were answered (or given up by every caller). When not (no leader known, a
     * leader of an earlier version, a failure or no answer in time) they go as an entry of their own,
     * which is safe however far the query got: every forwarded call carries an Idempotency-Key, so a
     * copy applies once.
     */
    private boolean joinLeadersGroup(List<GroupCommit.Pending> group, List<byte[]> encoded) {
        RaftPeerId leader = membership().map(d -> d.getInfo().getLeaderId()).orElse(null);
        if (leader == null || leader.equals(selfId) || joinRefusal.stillHolds(leader)) return false;
        RaftPeer peer = leaderPeer(leader);
        if (peer == null) return false;
        Throwable failure;
        try {
            RaftClientReply reply = forwardingClient.get(peer).io().sendStaleRead(KvStateMachine.messageOf(EntryCodec.forwardedCalls(encoded)), 0, leader);
            if (reply.isSuccess()) {
                answerEach(group, reply);
                return true;
            }
            failure = reply.getException();
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
        if (Thread.currentThread().isInterrupted()) { // every caller gave up (forward cancelled the call)
            for (GroupCommit.Pending p : group) p.outcome().completeExceptionally(unavailable(failure));
            return true;
        }
        joinRefusal = new JoinRefusal(leader, System.nanoTime());
        LOG.debug("forwarded calls go as entries of their own for a while: the leader did not take them into its group", failure);
        return false;
    }

    /**
     * The last leader that did not take forwarded calls into its group, and when. While it leads, for
     * {@link #GROUPS_REFUSED_PAUSE_NANOS} after, calls go as entries of their own: it may run an earlier
     * version. A new leader is asked at once.
     */
    private record JoinRefusal(RaftPeerId leader, long atNanos) {
        boolean stillHolds(RaftPeerId current) {
            return current.equals(leader) && System.nanoTime() - atNanos < GROUPS_REFUSED_PAUSE_NANOS;
        }
    }

    private volatile JoinRefusal joinRefusal = new JoinRefusal(RaftPeerId.valueOf("none"), System.nanoTime());
    private final AtomicLong forwardedCallsJoined = new AtomicLong();

    /**
     * Leader only: puts write calls a follower forwarded ({@link #joinLeadersGroup}) in this node's group
     * commit, with the calls of its own clients. Each must carry an Idempotency-Key (the follower gives
     * one to every call it forwards): a call whose query got no answer goes again as an entry, and
     * must apply once however many copies reach the log.
     */
    private CompletableFuture<byte[]> joinForwarded(List<Entry.WriteCall> forwarded) {
        if (!isLeader()) return CompletableFuture.failedFuture(new Refusal(Reason.KV_NO_LEADER, "this node is not the leader"));
        if (!forwarded.stream().allMatch(ReplicatedKv::appliesOnceHoweverSent))
            return CompletableFuture.failedFuture(new IllegalArgumentException("a forwarded write call has no Idempotency-Key"));
        forwardedCallsJoined.addAndGet(forwarded.size());
        List<CompletableFuture<Outcome>> outcomes = new ArrayList<>(forwarded.size());
        for (Entry.WriteCall call : forwarded)
            outcomes.add(calls.add(new GroupCommit.Pending(call, EntryCodec.encode(call), new CompletableFuture<>())));
        return CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).handle((done, failure) -> OutcomeCodec.encodeEach(
                outcomes.stream().map(o -> o.isCompletedExceptionally() ? Optional.<Outcome>empty() : Optional.of(o.join())).toList(),
                forwarded, AnswerForm.AS_SENT));
    }

    private static byte[] encode(List<GroupCommit.Pending> group) {
        return group.size() == 1 ? group.get(0).encoded() : EntryCodec.group(group.stream().map(GroupCommit.Pending::encoded).toList());
    }

    /** Completes each call of a group (or the one call) with its outcome from the entry's reply. */
    private static void answer(List<GroupCommit.Pending> group, RaftClientReply reply) {
        if (group.size() == 1) {
            complete(group.get(0).outcome(), reply);
            return;
        }
        answerEach(group, reply);
    }

    /** Completes each call of a group with its outcome from a reply that holds one per call ({@link OutcomeCodec#encodeEach}). */
    private static void answerEach(List<GroupCommit.Pending> group, RaftClientReply reply) {
        List<Optional<Outcome>> each;
        try {
            each = OutcomeCodec.decodeEach(reply.getMessage().getContent().toByteArray(),
                    group.stream().map(GroupCommit.Pending::call).toList());
        } catch (RuntimeException e) {
            LOG.error("the reply to a group of write calls does not decode", e);
            for (GroupCommit.Pending p : group) p.outcome().completeExceptionally(new Refusal(Reason.KV_RETRY, "the leader's reply could not be read; see the node's log"));
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            CompletableFuture<Outcome> outcome = group.get(i).outcome();
            each.get(i).ifPresentOrElse(outcome::complete,
                    () -> outcome.completeExceptionally(new Refusal(Reason.KV_RETRY, "the leader refused or could not apply the call")));
        }
    }

    /** Whether the leader refused an entry before it entered the log (its state machine's answer to a proposal). */
    private static boolean refused(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) t = t.getCause();
        return t instanceof StateMachineException;
    }

    /**
     * Whether sending {@code entry} again cannot apply it twice: a write call with an
     * {@code Idempotency-Key} (the engine answers a second copy with the first one's outcome), and the
     * leader's own entries (sweeps and settings, the same however often they apply). A write call
     * without one whose first copy may be in the log gets 503 instead: its outcome is unknown.
     */
    static boolean appliesOnceHoweverSent(Entry entry) {
        return !(entry instanceof Entry.WriteCall call) || call.idempotencyKey() != null;
    }

    /**
     * The call as sent to the leader through the node's client. That client sends again what got no
     * answer in time, and Ratis' retry cache does not catch a resend that reaches a new leader before
     * it applied the first copy: both would apply. So a write call without an {@code Idempotency-Key}
     * gets one here, which no HTTP header can carry (it starts with a control character), and the
     * engine answers a second copy with the first one's outcome.
     */
    static Entry.WriteCall forwardable(Entry.WriteCall call) {
        if (call.idempotencyKey() != null) return call;
        return new Entry.WriteCall(call.instant(), call.tenant(), FORWARDED_KEY_PREFIX + UUID.randomUUID(), FORWARDED_FINGERPRINT, call.ops());
    }

    static final String FORWARDED_KEY_PREFIX = "\u0001forwarded ";
    private static final String FORWARDED_FINGERPRINT = "\u0001forwarded";

    /** What decides whether this node, as leader, writes grouped calls; refreshed by {@link LeaderDuties}. */
    EntryFormats entryFormats() {
        return entryFormats;
    }

    /** Proposes one log entry through the node's client and blocks until it is applied; the reply carries its log index. */
    RaftClientReply propose(Entry entry) {
        return sendToLeader(KvStateMachine.messageOf(EntryCodec.encode(entry)));
    }

    private RaftClientReply sendToLeader(Message message) {
        return call(() -> client.io().send(message));
    }

    /**
     * A linearizable read on this node: it passes a ReadIndex round shared with the reads around it
     * ({@link ReadBarrier}; on a follower the round asks the leader), then reads the local state.
     */
    public CompletableFuture<Outcome> read(String tenant, List<Op> ops) {
        if (membership().isEmpty()) throw new Refusal(Reason.KV_NO_LEADER, "this node is not a member of the group yet");
        return reads.pass().handle((passed, failure) -> {
            if (failure != null) throw unavailable(failure);
            return stateMachine.read(tenant, ops);
        });
    }

    /**
     * One round of the read barrier; it completes once this node applied every write acknowledged
     * before the round began. The leader takes its commit index as the read index, checks that it
     * still leads ({@link LeadershipCheck}) and waits until it applied that far: Raft's ReadIndex.
     * The commit index is the read index only once the leader committed an entry of its own term
     * (Ratis' "leader ready"); until then, right after an election, the round takes Ratis' ReadIndex
     * (which waits for that entry) beside the check, since Ratis 3.3 may answer a ReadIndex without
     * asking the followers. A round during which the term changed fails. A follower asks its leader
     * for the leader's applied index after the leader's own barrier ({@link #askLeaderForReadIndex})
     * and waits until it applied that far.
     */
    private CompletionStage<?> readIndexRound() {
        RaftServer.Division d = membership().orElseThrow(() -> new Refusal(Reason.KV_NO_LEADER, "this node is not a member of the group yet"));
        RaftPeerId leader = d.getInfo().getLeaderId();
        if (leader == null) throw new Refusal(Reason.KV_NO_LEADER, "no Raft leader is known right now");
        if (!leader.equals(selfId)) return askLeaderForReadIndex(leader);
        long term = d.getInfo().getCurrentTerm();
        // Ready first: a commit index read after the entry of this term was committed includes it.
        boolean ready = d.getInfo().isLeaderReady();
        long commitIndex = d.getRaftLog().getLastCommittedIndex();
        CompletableFuture<?> index = ready ? stateMachine.applied(commitIndex) : ratisReadIndex();
        CompletableFuture<Void> confirmed = leadership.confirm(term);
        // Either failure fails the round at once; it passes when both passed.
        CompletableFuture<Void> round = new CompletableFuture<>();
        index.whenComplete((r, failure) -> { if (failure != null) round.completeExceptionally(failure); });
        confirmed.whenComplete((r, failure) -> { if (failure != null) round.completeExceptionally(failure); });
        CompletableFuture.allOf(index, confirmed).thenRun(() -> {
            if (d.getInfo().getCurrentTerm() == term) round.complete(null);
            else round.completeExceptionally(new Refusal(Reason.KV_NO_LEADER, "the Raft term changed during the read"));
        });
        return round;
    }

    /** Ratis' ReadIndex: a read of nothing through this node's own Raft server; completes once this node applied up to the read index. */
    private CompletableFuture<RaftClientReply> ratisReadIndex() {
        return submitLocally(READ_INDEX_ROUND, RaftClientRequest.readRequestType()).thenApply(reply -> {
            Throwable why = failureOf(reply, null);
            if (why != null) throw new CompletionException(why);
            return reply;
        });
    }

    /**
     * A follower's round: asks the leader it follows for the leader's applied index once the leader's
     * read barrier passed after the query arrived ({@link EntryCodec#READ_INDEX_QUERY}), then waits
     * until this node applied that far. The leader's barrier runs one round for all the queries and
     * reads waiting for it. A leader of an earlier version refuses the query as a read it cannot
     * decode; Ratis' ReadIndex then stands alone, as it did in that version, while that leader leads
     * in that term.
     */
    private CompletableFuture<?> askLeaderForReadIndex(RaftPeerId leader) {
        RaftPeer peer = leaderPeer(leader);
        if (peer == null) throw new Refusal(Reason.KV_NO_LEADER, "the Raft leader is not in this node's configuration yet");
        long term = membership().map(d -> d.getInfo().getCurrentTerm()).orElse(-1L);
        if (new LeaderTerm(leader, term).equals(readIndexRefusedBy)) return ratisReadIndex();
        RaftClient client = readIndexClient.get(peer);
        RaftClientRequest query = RaftClientRequest.newBuilder()
                .setClientId(client.getId()).setServerId(leader).setGroupId(groupId)
                .setCallId(readIndexCallIds.incrementAndGet()).setMessage(READ_INDEX_QUERY)
                .setType(RaftClientRequest.staleReadRequestType(0)).build();
        // The client's unordered stream, with no thread waiting for the answer. A failure may close
        // that stream for good, so the client that carried it is discarded.
        return client.getClientRpc().sendRequestAsyncUnordered(query).handle((reply, failure) -> {
            Throwable why = failure != null ? unwrapped(failure) : reply.isSuccess() ? null : reply.getException();
            if (why == null) return EntryCodec.decodeReadIndexAnswer(reply.getMessage().getContent().toByteArray());
            readIndexClient.discard(client);
            if (!refusedAsUndecodable(why)) throw new CompletionException(why);
            readIndexRefusedBy = new LeaderTerm(leader, term);
            return REFUSED_BY_AN_EARLIER_VERSION;
        }).<Void>thenCompose(answer -> {
            if (answer.isEmpty()) throw new Refusal(Reason.KV_NO_LEADER, "the leader could not confirm it still leads");
            return answer.equals(REFUSED_BY_AN_EARLIER_VERSION) ? ratisReadIndex().thenApply(reply -> null)
                    : stateMachine.applied(answer.getAsLong()).thenApply(applied -> null);
        });
    }

    private static final Message READ_INDEX_QUERY = KvStateMachine.messageOf(EntryCodec.READ_INDEX_QUERY);
    private final AtomicLong readIndexCallIds = new AtomicLong();

    /** A leader in one term. */
    private record LeaderTerm(RaftPeerId leader, long term) {}

    /** The leader (and term) that refused the read index query as an earlier version; a new leader, or a new term, is asked again. */
    private volatile LeaderTerm readIndexRefusedBy;

    private static Throwable unwrapped(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** The leader as this node's configuration has it (its Raft address), or null while it is not in it. */
    private RaftPeer leaderPeer(RaftPeerId leader) {
        return membership().map(d -> d.getRaftConf().getPeer(leader, RaftPeerRole.FOLLOWER)).orElse(null);
    }

    /**
     * A Raft client that talks to the leader alone, one try per call, with no resend: made for the
     * leader as this node's configuration names it, and made again when the leader (or its address)
     * changes or a call through it failed. The clients made at start know only the configured peers,
     * and a member added since (scaled up) may lead.
     */
    private final class ClientOfLeader {
        private RaftPeer leader;
        private RaftClient client;
        private boolean failed;

        synchronized RaftClient get(RaftPeer current) {
            // RaftPeer equality is by id alone; a member that came back at another address needs a new client.
            if (client != null && !failed && leader.equals(current) && Objects.equals(leader.getAddress(), current.getAddress())) return client;
            close();
            leader = current;
            client = newClient(List.of(current), RetryPolicies.noRetry());
            failed = false;
            return client;
        }

        /**
         * A call through {@code client} failed: the next call gets a new client. It is closed then, not
         * here: this runs on the client's own gRPC threads, and closing waits for its channel to end.
         */
        synchronized void discard(RaftClient failing) {
            if (client == failing) failed = true;
        }

        synchronized void close() {
            if (client != null) closeQuietly(client);
            client = null;
        }
    }

    /** Forwarded calls ({@link #joinLeadersGroup}); each blocking call has a stream of its own. */
    private final ClientOfLeader forwardingClient = new ClientOfLeader();
    /** Read index queries ({@link #askLeaderForReadIndex}), on the client's one unordered stream. */
    private final ClientOfLeader readIndexClient = new ClientOfLeader();

    private static void closeQuietly(RaftClient client) {
        try {
            client.close();
        } catch (IOException | RuntimeException e) {
            LOG.debug("closing a Raft client failed", e);
        }
    }

    /** What {@link #askLeaderForReadIndex} takes a leader's refusal of the query for: no applied index is negative. */
    private static final OptionalLong REFUSED_BY_AN_EARLIER_VERSION = OptionalLong.of(-1);

    /**
     * Whether a query failed because the leader's state machine could not decode it: an earlier
     * version reads an unknown query as a malformed read and throws {@link UncheckedIOException},
     * which reaches this node as the cause of the call's {@link IOException}. A failure of the
     * transport, a timeout or a refusal as not leader has another cause; this version decodes every
     * query it sends.
     */
    private static boolean refusedAsUndecodable(Throwable failure) {
        return failure instanceof StateMachineException
                || failure instanceof IOException && failure.getCause() instanceof UncheckedIOException;
    }

    /**
     * Leader only: answers a follower's {@link #askLeaderForReadIndex} with this node's applied index
     * once a round of its read barrier that began after the query arrived passed. Never fails, so a
     * failed query means a leader of an earlier version.
     */
    private CompletableFuture<byte[]> answerReadIndex() {
        if (!isLeader()) return CompletableFuture.completedFuture(EntryCodec.readIndexRefused());
        return reads.pass().handle((passed, failure) -> failure == null
                ? EntryCodec.readIndexAnswer(stateMachine.getLastAppliedTermIndex().getIndex())
                : EntryCodec.readIndexRefused());
    }

    private static final Message READ_INDEX_ROUND =
            Message.valueOf(ByteString.copyFrom(EntryCodec.encodeQuery(new EntryCodec.ReadQuery(Access.DEFAULT_TENANT, List.of()))));

    /**
     * A request to this node's own Raft server, without the client and its gRPC round trip. Each
     * gets a call id of its own under this node's client id (Ratis' retry cache keys on the pair).
     */
    private CompletableFuture<RaftClientReply> submitLocally(Message message, RaftClientRequest.Type type) {
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(localClientId).setServerId(selfId).setGroupId(groupId)
                .setCallId(localCallIds.incrementAndGet()).setMessage(message).setType(type).build();
        try {
            return server.submitClientRequestAsync(request);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private boolean isLeader() {
        return membership().map(d -> d.getInfo().isLeader() && d.getInfo().isLeaderReady()).orElse(false);
    }

    /** Why a call to this node's server failed, or null when it succeeded. */
    private static Throwable failureOf(RaftClientReply reply, Throwable failure) {
        return failure != null ? failure : reply.isSuccess() ? null : reply.getException();
    }

    private static boolean notLeader(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) t = t.getCause();
        return t instanceof NotLeaderException || t instanceof LeaderNotReadyException;
    }

    private static void complete(CompletableFuture<Outcome> outcome, RaftClientReply reply) {
        try {
            outcome.complete(outcomeOf(reply));
        } catch (RuntimeException e) {
            outcome.completeExceptionally(e);
        }
    }

    private Future<Outcome> submit(Callable<Outcome> call) {
        try {
            return callers.submit(call);
        } catch (RejectedExecutionException e) {
            throw tooManyCalls();
        }
    }

    /** Raft calls this node is forwarding to the leader right now, each on a thread of {@link #callers}. */
    public int forwardedCallsInProgress() {
        return callers.getActiveCount();
    }

    /** Groups of write calls this node sent as one log entry each ({@link GroupCommit}). */
    public long writeGroupsSent() {
        return calls.groupsSent();
    }

    /** Write calls this node sent in those groups. */
    public long writeCallsSentInGroups() {
        return calls.callsSentInGroups();
    }

    /** Write calls followers forwarded that this node, as leader, took into its own groups ({@link #joinForwarded}). */
    public long forwardedCallsJoined() {
        return forwardedCallsJoined.get();
    }

    /** ReadIndex rounds this node ran for linearizable reads ({@link ReadBarrier}). */
    public long readIndexRounds() {
        return reads.rounds();
    }

    /** Linearizable reads that passed those rounds. */
    public long readsPassedRounds() {
        return reads.readsPassed();
    }

    /** Whether this node, as leader, takes grouped write calls into the log ({@link EntryFormats}). */
    public boolean groupsAllowedAsLeader() {
        return isLeader() && stateMachine.writeCallsAllowed();
    }

    /** Whether this node, as leader, has grouped entries answered as sent ({@link io.queenkv.node.kv.AnswerForm#AS_SENT}). */
    public boolean answersAsSentAsLeader() {
        return isLeader() && stateMachine.answersAsSentAllowed();
    }

    private static Refusal tooManyCalls() {
        return new Refusal(Reason.KV_RETRY, "this node runs " + MAX_CONCURRENT_CALLS + " Raft calls already; try again or another node");
    }

    /** A backup: the whole state at one log index, with every write acknowledged before the call in it. */
    public record Backup(KvEngine.Frozen state, long index) {}

    /**
     * Passes the linearizable ReadIndex barrier (so this node has applied every write acknowledged
     * before the call), then freezes the state and its index together (references only).
     */
    public Backup backup() {
        passReadBarrier();
        KvStateMachine.FrozenAt frozen = stateMachine.freeze();
        return new Backup(frozen.state(), frozen.index());
    }

    /** Until a snapshot of at least {@code index} is written, one is written whenever Ratis asks ({@link ClusterAdmin#snapshot}). */
    void requestSnapshot(long index) {
        stateMachine.requestSnapshot(index);
    }

    /** Reads local engine state (no barrier): status, metrics, the sweeper. */
    public <T> T local(Function<KvEngine, T> query) {
        return stateMachine.withEngine(query);
    }

    /**
     * {@link #local} once a ReadIndex round has passed: the state then holds every write
     * acknowledged before this call, on any member (a follower learns of a commit only with the
     * leader's next message). Blocks; for admin calls, not for the request path.
     */
    public <T> T linearizable(Function<KvEngine, T> query) {
        passReadBarrier();
        return local(query);
    }

    /**
     * Whether a ReadIndex round passes within {@code wait}: this node then knows the leader's commit
     * index and has applied up to it (readiness). Its own commit index is no guide: a member catching
     * up takes as committed only what it has in its log, and learns of later commits with the
     * leader's next message.
     */
    public boolean caughtUp(Duration wait) {
        try {
            passReadBarrier(wait);
            return true;
        } catch (Refusal notYet) {
            return false;
        }
    }

    /** Blocks until a ReadIndex round passed: every write acknowledged before the call is then applied here. */
    private void passReadBarrier() {
        passReadBarrier(BARRIER_WAIT);
    }

    /** As {@link #passReadBarrier()}, waiting at most {@code wait} for the round. */
    private void passReadBarrier(Duration wait) {
        if (membership().isEmpty()) throw new Refusal(Reason.KV_NO_LEADER, "this node is not a member of the group yet");
        try {
            reads.pass().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw unavailable(e.getCause());
        } catch (TimeoutException e) {
            throw new Refusal(Reason.KV_TIMEOUT, "the cluster did not confirm this node's state in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refusal(Reason.KV_TIMEOUT, "interrupted");
        }
    }

    /** This node's member of the group; a node started outside the peer list has none until it is added. */
    public Optional<RaftServer.Division> membership() {
        try {
            // A division that is still starting (its log not open yet) or was shut down is no member yet.
            RaftServer.Division d = server.getDivision(groupId);
            return d.getInfo().getLifeCycleState() == LifeCycle.State.RUNNING ? Optional.of(d) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The group's division when Ratis started it outside the group: the server is running, the
     * division is not, as Ratis leaves one whose own configuration does not hold it until a leader
     * takes it in. Such a node is no member ({@link #membership()} is empty).
     */
    Optional<RaftServer.Division> startedOutsideTheGroup() {
        try {
            if (server.getLifeCycleState() != LifeCycle.State.RUNNING) return Optional.empty();
            RaftServer.Division d = server.getDivision(groupId);
            if (d.getInfo().getLifeCycleState() != LifeCycle.State.STARTING) return Optional.empty();
            return d.getRaftLog().isOpened() ? Optional.of(d) : Optional.empty();
        } catch (IOException | IllegalStateException e) { // IllegalStateException: Ratis has not opened its log yet
            return Optional.empty();
        }
    }

    public RaftServer.Division division() {
        return membership().orElseThrow(() -> new Refusal(Reason.KV_NO_LEADER, "this node is not a member of the group yet"));
    }

    public RaftClient client() {
        return client;
    }

    RaftServer server() {
        return server;
    }

    public RaftGroupId groupId() {
        return groupId;
    }

    public MemberIdentity identity() {
        return identity;
    }

    /** What a leader whose term began half-way through a membership change must clear ({@link LeaderDuties}). */
    LeftoverAppenders leftoverAppenders() {
        return leftoverAppenders;
    }

    /** This member's mark of a pending (re-)admission ({@link Admission} sets it, the applied configuration clears it). */
    PendingReadmission pendingReadmission() {
        return pendingReadmission;
    }

    public RaftPeerId selfId() {
        return selfId;
    }

    public NodeConfig config() {
        return config;
    }

    interface RaftCall {
        RaftClientReply send() throws IOException;
    }

    /** Runs a Raft call; any failure becomes a 503 refusal. */
    static RaftClientReply call(RaftCall call) {
        try {
            RaftClientReply reply = call.send();
            if (!reply.isSuccess()) throw unavailable(reply.getException());
            return reply;
        } catch (IOException e) {
            throw unavailable(e);
        }
    }

    private static Outcome outcomeOf(RaftClientReply reply) {
        return OutcomeCodec.decode(reply.getMessage().getContent().toByteArray());
    }

    /** Maps a Raft failure to the contract's 503 reasons. */
    public static Refusal unavailable(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException || t instanceof RaftRetryFailureException)
                && t.getCause() != null) t = t.getCause();
        if (t instanceof Refusal r) return r;
        // A member that lost its disk answers that it has no such group: it is not the leader either.
        // A ReadIndex fails so on a member that knows no leader, or that stopped leading during it.
        if (t instanceof NotLeaderException || t instanceof LeaderNotReadyException || t instanceof GroupMismatchException
                || t instanceof ReadIndexException)
            return new Refusal(Reason.KV_NO_LEADER, "no Raft leader is available right now");
        if (t instanceof TimeoutIOException || t instanceof TimeoutException)
            return new Refusal(Reason.KV_TIMEOUT, "the cluster did not answer in time; the outcome of a write is unknown");
        if (t instanceof StateMachineException)
            return new Refusal(Reason.KV_RETRY, "the leader refused or could not apply the call");
        // Raft's own messages name its classes and peers' internals: they go to the log, not to callers.
        LOG.warn("a Raft call failed", failure);
        if (failure instanceof RaftRetryFailureException)
            return new Refusal(Reason.KV_NO_LEADER, "no Raft leader answered; see the node's log");
        if (t instanceof java.io.InterruptedIOException)
            return new Refusal(Reason.KV_TIMEOUT, "the call was cancelled; the outcome of a write is unknown");
        return new Refusal(Reason.KV_RETRY, "replication failed; see the node's log");
    }

    @Override
    public void close() throws IOException {
        admission.close();
        entryFormats.close();
        callers.shutdownNow();
        readRounds.shutdownNow();
        try {
            client.close();
        } finally {
            try {
                forwardingClient.close();
                readIndexClient.close();
            } finally {
                server.close();
            }
        }
    }
}
