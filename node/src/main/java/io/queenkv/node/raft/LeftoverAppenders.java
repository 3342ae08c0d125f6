package io.queenkv.node.raft;

import java.io.IOException;
import java.util.List;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Log appenders a new leader keeps for members its configuration no longer holds, and the step-down
 * that clears them.
 *
 * <p>Ratis 3.3 starts a leader's appenders from its configuration as its term begins. When that is a
 * joint one (a membership change was half-way when the last leader stopped: re-admission takes a
 * member out and back in) it starts one for every member of either half, then replaces the joint
 * configuration by the new half with the term's first entry, and never stops the appenders of the
 * members only the old half held. While this node leads, such a member can never be added again
 * (Ratis refuses a second appender for it: "Found duplicated element") and keeps being sent the log.
 *
 * <p>Ratis accepts no configuration change before the term's first entry is applied, so an appender
 * the leader has then for a member outside its configuration is a leftover, never a change under
 * way. The leader notes them at that moment and steps down once; the next leader (most likely this
 * node again, whose log is the longest) starts from the stable configuration.
 */
final class LeftoverAppenders {
    private static final Logger LOG = LoggerFactory.getLogger(LeftoverAppenders.class);
    private static final long STEP_DOWN_TIMEOUT_MS = 10_000;

    /** Members a leader appends to outside its configuration, as its term {@code term} became ready. */
    record Found(long term, List<RaftPeerId> members) {}

    private volatile Found found;

    /** On the apply thread, as this node's term as leader becomes ready. */
    void noteAtLeaderReady(RaftServer.Division leader) {
        RaftConfiguration conf = leader.getRaftConf();
        RoleInfoProto role = leader.getInfo().getRoleInfoProto();
        List<RaftPeerId> outside = role.getLeaderInfo().getFollowerInfoList().stream()
                .map(f -> RaftPeerId.valueOf(f.getId().getId()))
                .filter(id -> conf.getPeer(id, RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) == null)
                .sorted(java.util.Comparator.comparing(RaftPeerId::toString))
                .toList();
        found = outside.isEmpty() ? null : new Found(leader.getInfo().getCurrentTerm(), outside);
    }

    /**
     * On the leader's duties thread: when this term began with leftover appenders, steps down (once per
     * term) and answers true; false when there is nothing to clear.
     */
    boolean stepDownIfAny(ReplicatedKv kv, RaftServer.Division leader) {
        Found f = found;
        if (f == null || f.term() != leader.getInfo().getCurrentTerm() || !leader.getInfo().isLeader()) return false;
        found = null;
        LOG.warn("this leader's term began half-way through a membership change, and Ratis kept sending the log to {},"
                + " outside the configuration; it steps down so that a leader starting from the configuration takes over", f.members());
        try (RaftClient toSelf = kv.newClient(List.of(leader.getPeer()), RetryPolicies.noRetry(), STEP_DOWN_TIMEOUT_MS)) {
            RaftClientReply reply = toSelf.admin().transferLeadership(null, kv.selfId(), STEP_DOWN_TIMEOUT_MS);
            if (!reply.isSuccess()) LOG.warn("the leader did not step down: {}", reply.getException().getMessage());
        } catch (IOException e) {
            LOG.warn("the leader did not step down: {}", e.getMessage());
        }
        return true;
    }
}
