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
 * Whether the leader may write {@link Entry.WriteCalls} entries, and mark them to be answered
 * {@link io.queenkv.node.kv.AnswerForm#AS_SENT}: a node of an earlier version cannot apply the one or
 * read the other, so the leader does each only while every member of the configuration (voters and
 * listeners, old and new during a change) has answered {@link EntryCodec#FORMAT_PROBE} with a kind
 * that says it can. During a rolling upgrade that is once the last member runs this version; a member
 * that answered an older kind is asked again now and then. A member's answer is remembered for as
 * long as this node runs: going back to an earlier version after that is not supported (README,
 * "Upgrades").
 */
final class EntryFormats implements AutoCloseable {
    private final ReplicatedKv kv;
    /** Each member's answer to the probe, its newest entry kind; members that did not answer have none. */
    private final Map<RaftPeerId, byte[]> answers = new ConcurrentHashMap<>();
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

    EntryFormats(ReplicatedKv kv) {
        this.kv = kv;
    }

    /**
     * One round of the leader's duties: opens or closes the gate on the answers so far, and starts a
     * probe of each member not heard from yet that is due for one. Never waits for a probe.
     */
    void refresh(RaftConfiguration conf) {
        boolean groups = true, asSent = true;
        for (RaftPeerRole role : List.of(RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER))
            for (RaftPeer peer : conf.getAllPeers(role)) {
                if (peer.getId().equals(kv.selfId())) continue;
                byte[] answer = answers.get(peer.getId());
                groups &= answer != null && EntryCodec.appliesWriteCalls(answer);
                boolean newest = answer != null && EntryCodec.answersAsSent(answer);
                asSent &= newest;
                if (!newest && dueForAsking(peer.getId()) && asking.add(peer.getId())) ask(peer);
            }
        KvStateMachine stateMachine = kv.stateMachine();
        stateMachine.allowWriteCalls(groups);
        stateMachine.allowAnswersAsSent(groups && asSent);
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
                    byte[] answer = probe(peer);
                    if (answer != null) answers.put(peer.getId(), answer);
                } finally {
                    asking.remove(peer.getId());
                }
            });
        } catch (RejectedExecutionException e) {
            asking.remove(peer.getId()); // closing
        }
    }

    /** The member's answer to the probe, or null: down, or an earlier version that refused it (asked again after ASK_EVERY_NANOS). */
    private byte[] probe(RaftPeer peer) {
        try (RaftClient direct = kv.newClient(List.of(peer), RetryPolicies.noRetry(), ANSWER_WITHIN_MILLIS)) {
            RaftClientReply reply = direct.io().sendStaleRead(Message.valueOf(ByteString.copyFrom(EntryCodec.FORMAT_PROBE)), 0, peer.getId());
            return reply.isSuccess() ? reply.getMessage().getContent().toByteArray() : null;
        } catch (Exception e) {
            return null;
        }
    }

    @Override
    public void close() {
        probes.shutdownNow();
    }
}
