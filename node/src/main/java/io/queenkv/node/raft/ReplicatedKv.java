package io.queenkv.node.raft;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.EntryCodec;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Outcome;
import io.queenkv.node.kv.OutcomeCodec;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;
import io.queenkv.node.tls.NodeTls;

/**
 * This node's Raft member and its client: writes become one log entry each, reads pass the
 * linearizable ReadIndex barrier of this node. Failures surface as {@link Refusal}s with the
 * contract's 503 reasons.
 */
public final class ReplicatedKv implements AutoCloseable {
    /** One group per cluster; its id is fixed so every node of every cluster agrees without config. */
    static final RaftGroupId GROUP_ID = RaftGroupId.valueOf(UUID.nameUUIDFromBytes("queen-kv".getBytes(StandardCharsets.UTF_8)));
    private static final TimeDuration REQUEST_TIMEOUT = TimeDuration.valueOf(3, TimeUnit.SECONDS);

    private final NodeConfig config;
    private final KvStateMachine stateMachine;
    private final RaftServer server;
    private final RaftClient client;
    private final RaftPeerId selfId;
    private final Parameters rpcParameters;
    /**
     * Runs the client's blocking calls. Blocking calls are unary and unordered, so a slow call never
     * holds up another (the ordered async stream does); callers wait on the future with a deadline.
     */
    private final ExecutorService callers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "queen-kv-raft-call");
        t.setDaemon(true);
        return t;
    });

    /** @param tls the node's TLS identity, or null when TLS is off (plaintext Raft) */
    public ReplicatedKv(NodeConfig config, NodeTls tls, LongSupplier clockMicros) throws IOException {
        this.config = config;
        this.rpcParameters = rpcParameters(tls);
        this.selfId = RaftPeerId.valueOf(config.nodeId());
        this.stateMachine = new KvStateMachine(config.seedSettings(), clockMicros);
        RaftGroup group = RaftGroup.valueOf(GROUP_ID, toPeers(config.peers()));
        // A node outside the peer list starts with no group (or the one in its storage) and waits to be added.
        boolean initialMember = config.peers().stream().anyMatch(p -> p.id().equals(config.nodeId()));
        this.server = RaftServer.newBuilder()
                .setServerId(selfId)
                .setGroup(initialMember ? group : RaftGroup.emptyGroup())
                .setProperties(serverProperties(config))
                .setStateMachine(stateMachine)
                .setParameters(rpcParameters)
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
        server.start();
        // The client knows every configured peer and always this node, whose reads it serves.
        List<RaftPeer> known = new ArrayList<>(group.getPeers());
        if (!initialMember) known.addAll(toPeers(List.of(config.self())));
        this.client = RaftClient.newBuilder()
                .setProperties(clientProperties())
                .setParameters(rpcParameters)
                .setRaftGroup(RaftGroup.valueOf(GROUP_ID, known))
                .setLeaderId(null)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(16, TimeDuration.valueOf(500, TimeUnit.MILLISECONDS)))
                .build();
    }

    private static RaftProperties serverProperties(NodeConfig config) {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(p, config.bindAddress());
        GrpcConfigKeys.Server.setPort(p, config.raftPort());
        RaftServerConfigKeys.setStorageDir(p, List.of(config.dataDir().toAbsolutePath().toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(1, TimeUnit.SECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2, TimeUnit.SECONDS));
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, config.snapshotEveryEntries());
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        // A call may carry 256 values of 64 KiB: entries and appends must fit the body limit.
        SizeInBytes max = SizeInBytes.valueOf(config.seedSettings().maxBodyBytes() + (1 << 20));
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(Math.max(max.getSize() * 2, 64L << 20)));
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, max);
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

    static RaftProperties clientProperties() {
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

    /** Proposes one log entry; completes with the engine's outcome once it is applied. */
    public CompletableFuture<Outcome> write(Entry entry) {
        return CompletableFuture.supplyAsync(() -> outcomeOf(propose(entry)), callers);
    }

    /** Proposes one log entry and blocks until it is applied; the reply carries its log index. */
    RaftClientReply propose(Entry entry) {
        Message message = Message.valueOf(ByteString.copyFrom(EntryCodec.encode(entry)));
        return call(() -> client.io().send(message));
    }

    /** A linearizable read on this node: ReadIndex first, then the local state. */
    public CompletableFuture<Outcome> read(String tenant, List<Op> ops) {
        Message message = Message.valueOf(ByteString.copyFrom(EntryCodec.encodeQuery(new EntryCodec.ReadQuery(tenant, ops))));
        return CompletableFuture.supplyAsync(() -> outcomeOf(call(() -> client.io().sendReadOnly(message, selfId))), callers);
    }

    /** Reads local engine state (no barrier): status, metrics, the sweeper. */
    public <T> T local(Function<KvEngine, T> query) {
        return stateMachine.withEngine(query);
    }

    /** This node's member of the group; a node started outside the peer list has none until it is added. */
    public Optional<RaftServer.Division> membership() {
        try {
            return Optional.of(server.getDivision(GROUP_ID));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    public RaftServer.Division division() {
        return membership().orElseThrow(() -> new Refusal(Reason.KV_NO_LEADER, "this node is not a member of the group yet"));
    }

    public RaftClient client() {
        return client;
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
        while ((t instanceof CompletionException || t instanceof RaftRetryFailureException) && t.getCause() != null) t = t.getCause();
        if (t instanceof Refusal r) return r;
        if (t instanceof NotLeaderException || t instanceof LeaderNotReadyException)
            return new Refusal(Reason.KV_NO_LEADER, "no Raft leader is available right now");
        if (t instanceof TimeoutIOException || t instanceof java.util.concurrent.TimeoutException)
            return new Refusal(Reason.KV_TIMEOUT, "the cluster did not answer in time; the outcome of a write is unknown");
        if (failure instanceof RaftRetryFailureException)
            return new Refusal(Reason.KV_NO_LEADER, "no Raft leader answered: " + t.getMessage());
        return new Refusal(Reason.KV_RETRY, "replication failed: " + (t == null ? "unknown" : t.getClass().getSimpleName() + ": " + t.getMessage()));
    }

    @Override
    public void close() throws IOException {
        callers.shutdownNow();
        try {
            client.close();
        } finally {
            server.close();
        }
    }
}
