package io.queenkv.node.raft;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.EntryCodec;

/**
 * Whether the leader may write {@link Entry.WriteCalls} entries: a node of an earlier version
 * cannot apply them and would skip them, so the leader takes them into the log only while every
 * member of the configuration (voters and listeners, old and new during a change) has answered
 * {@link EntryCodec#FORMAT_PROBE} as this version does. During a rolling upgrade that is once the
 * last member runs it. A member's answer is remembered for as long as this node runs: going back to
 * an earlier version after that is not supported (README, "Upgrades").
 */
final class EntryFormats implements AutoCloseable {
    private final ReplicatedKv kv;
    private final KvStateMachine stateMachine;
    private final Set<RaftPeerId> applyWriteCalls = ConcurrentHashMap.newKeySet();
    /** When each member not heard from yet was last asked: a member that is down costs a probe no more than once in a while. */
    private final Map<RaftPeerId, Long> askedAt = new ConcurrentHashMap<>();
    /** Members with a probe under way: one at a time each. */
    private final Set<RaftPeerId> asking = ConcurrentHashMap.newKeySet();
    /**
     * Probes run here, off the leader's duties: closing a client whose peer is paused can take seconds
     * (gRPC waits for its channel), and the duties (re-admission, sweeps) must not wait for that.
     */
    private final ExecutorService probes = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "queen-kv-format-probe");
        t.setDaemon(true);
        return t;
    });
    private static final long ASK_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long ANSWER_WITHIN_MILLIS = 500;

    EntryFormats(ReplicatedKv kv, KvStateMachine stateMachine) {
        this.kv = kv;
        this.stateMachine = stateMachine;
    }

    /**
     * One round of the leader's duties: opens or closes the gate on the answers so far, and starts a
     * probe of each member not heard from yet that is due for one. Never waits for a probe.
     */
    void refresh(RaftConfiguration conf) {
        boolean all = true;
        for (RaftPeerRole role : List.of(RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER))
            for (RaftPeer peer : conf.getAllPeers(role)) {
                if (peer.getId().equals(kv.selfId()) || applyWriteCalls.contains(peer.getId())) continue;
                all = false;
                if (dueForAsking(peer.getId()) && asking.add(peer.getId())) ask(peer);
            }
        stateMachine.allowWriteCalls(all);
    }

    private boolean dueForAsking(RaftPeerId member) {
        Long last = askedAt.get(member);
        return last == null || System.nanoTime() - last >= ASK_EVERY_NANOS;
    }

    private void ask(RaftPeer peer) {
        askedAt.put(peer.getId(), System.nanoTime());
        try {
            probes.execute(() -> {
                try {
                    if (answersAsThisVersion(peer)) applyWriteCalls.add(peer.getId());
                } finally {
                    asking.remove(peer.getId());
                }
            });
        } catch (RejectedExecutionException e) {
            asking.remove(peer.getId()); // closing
        }
    }

    private boolean answersAsThisVersion(RaftPeer peer) {
        try (RaftClient direct = kv.newClient(List.of(peer), RetryPolicies.noRetry(), ANSWER_WITHIN_MILLIS)) {
            RaftClientReply reply = direct.io().sendStaleRead(Message.valueOf(ByteString.copyFrom(EntryCodec.FORMAT_PROBE)), 0, peer.getId());
            return reply.isSuccess() && EntryCodec.appliesWriteCalls(reply.getMessage().getContent().toByteArray());
        } catch (Exception e) {
            return false; // down, or an earlier version that refused the probe: asked again after ASK_EVERY_NANOS
        }
    }

    @Override
    public void close() {
        probes.shutdownNow();
    }
}
