package io.queenkv.node.raft;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
final class EntryFormats {
    private final ReplicatedKv kv;
    private final KvStateMachine stateMachine;
    private final Set<RaftPeerId> applyWriteCalls = ConcurrentHashMap.newKeySet();
    /** When each member not heard from yet was last asked: a member that is down costs a round no more than once in a while. */
    private final Map<RaftPeerId, Long> askedAt = new ConcurrentHashMap<>();
    private static final long ASK_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long ANSWER_WITHIN_MILLIS = 500;

    EntryFormats(ReplicatedKv kv, KvStateMachine stateMachine) {
        this.kv = kv;
        this.stateMachine = stateMachine;
    }

    /** One round of the leader's duties: asks the members not heard from yet, then opens or closes the gate. */
    void refresh(RaftConfiguration conf) {
        boolean all = true;
        for (RaftPeerRole role : List.of(RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER))
            for (RaftPeer peer : conf.getAllPeers(role)) {
                if (peer.getId().equals(kv.selfId()) || applyWriteCalls.contains(peer.getId())) continue;
                if (dueForAsking(peer.getId()) && answersAsThisVersion(peer)) applyWriteCalls.add(peer.getId());
                else all = false;
            }
        stateMachine.allowWriteCalls(all);
    }

    private boolean dueForAsking(RaftPeerId member) {
        long now = System.nanoTime();
        Long last = askedAt.get(member);
        if (last != null && now - last < ASK_EVERY_NANOS) return false;
        askedAt.put(member, now);
        return true;
    }

    private boolean answersAsThisVersion(RaftPeer peer) {
        try (RaftClient direct = kv.newClient(List.of(peer), RetryPolicies.noRetry(), ANSWER_WITHIN_MILLIS)) {
            RaftClientReply reply = direct.io().sendStaleRead(Message.valueOf(ByteString.copyFrom(EntryCodec.FORMAT_PROBE)), 0, peer.getId());
            return reply.isSuccess() && EntryCodec.appliesWriteCalls(reply.getMessage().getContent().toByteArray());
        } catch (Exception e) {
            return false; // down, or an earlier version that refused the probe: asked again after ASK_EVERY_NANOS
        }
    }
}
