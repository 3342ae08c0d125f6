package io.queenkv.node.raft;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.LogInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Asks a member's Raft port what it holds of this cluster's group. Both the start-up of a member
 * with an empty data dir ({@link Admission}) and the leader's repair of members that lost their disk
 * ({@link Readmission}) decide on these answers.
 */
final class MemberProbe {
    /** A member's answer. */
    sealed interface Holding {
        /** No answer: down, paused, or not there yet. Nothing may be concluded from it. */
        record Unreachable(String why) implements Holding {}

        /** It answers and has no data of this group: a new member, or one that lost its disk. */
        record NoGroup() implements Holding {}

        /**
         * It holds the group; {@code committedIndex} is -1 while no leader ever committed an entry, and
         * {@code restored} says the group was created from a backup (its state a snapshot at term 0,
         * {@link KvStateMachine#RESTORED_AT}, which no leader has); {@code listener} says it runs as a
         * non-voting listener (only a member being re-admitted does).
         */
        record Holds(long committedIndex, long appliedIndex, boolean restored, boolean listener) implements Holding {
            /** A leader was elected and committed at least its first entry: the cluster exists. */
            boolean established() { return committedIndex >= 0; }
        }
    }

    /**
     * The leader's view of the configuration, as a member it asked answers it: whether the asking
     * member is in it (a voter or a listener), and whether a change is under way.
     */
    record LeaderView(RaftPeer leader, boolean holdsMember, boolean changing) {}

    private final ReplicatedKv kv;

    MemberProbe(ReplicatedKv kv) {
        this.kv = kv;
    }

    Holding probe(RaftPeer member) {
        try (RaftClient direct = kv.newClient(List.of(member), RetryPolicies.noRetry())) {
            var api = direct.getGroupManagementApi(member.getId());
            boolean holds = false;
            for (var id : api.list().getGroupIds()) holds |= id.equals(kv.groupId());
            if (!holds) return new Holding.NoGroup();
            GroupInfoReply info = api.info(kv.groupId());
            LogInfoProto log = info.getLogInfoProto();
            long committed = log != null && log.hasCommitted() ? log.getCommitted().getIndex() : -1;
            long applied = log != null && log.hasApplied() ? log.getApplied().getIndex() : -1;
            boolean restored = log != null && log.hasLastSnapshot() && log.getLastSnapshot().getTerm() == KvStateMachine.RESTORED_AT.getTerm();
            boolean listener = info.getRoleInfoProto() != null && info.getRoleInfoProto().getRole() == RaftPeerRole.LISTENER;
            return new Holding.Holds(committed, applied, restored, listener);
        } catch (IOException | RuntimeException e) {
            return new Holding.Unreachable(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** Asks {@code peers} in turn for the group; the first that answers as its leader tells where {@code member} stands. */
    Optional<LeaderView> leaderView(List<RaftPeer> peers, RaftPeerId member) {
        for (RaftPeer peer : peers) {
            try (RaftClient direct = kv.newClient(List.of(peer), RetryPolicies.noRetry())) {
                GroupInfoReply info = direct.getGroupManagementApi(peer.getId()).info(kv.groupId());
                if (info.getRoleInfoProto() == null || info.getRoleInfoProto().getRole() != RaftPeerRole.LEADER) continue;
                Optional<RaftConfigurationProto> conf = info.getConf();
                if (conf.isEmpty()) continue;
                ByteString id = member.toByteString();
                boolean holds = Stream.concat(conf.get().getPeersList().stream(), conf.get().getListenersList().stream())
                        .anyMatch(p -> p.getId().equals(id));
                boolean changing = !conf.get().getOldPeersList().isEmpty() || !conf.get().getOldListenersList().isEmpty();
                return Optional.of(new LeaderView(peer, holds, changing));
            } catch (IOException | RuntimeException e) {
                // not there, or not holding the group: ask the next one
            }
        }
        return Optional.empty();
    }
}
