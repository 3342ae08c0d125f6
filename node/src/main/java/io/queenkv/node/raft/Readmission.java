package io.queenkv.node.raft;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's repair of members that lost their data. A member restarted on an empty data dir
 * holds no group ({@link Admission}), so it cannot vote; this brings it back as a new incarnation.
 * Each change is a compare-and-set on the configuration this leader sees:
 *
 * <ol>
 *   <li><b>Take it out.</b> A member (voter or learner) that answers on its Raft port without the
 *       group lost its log: it leaves the configuration in one committed change. The change commits
 *       on a majority of the remaining voters, all of which hold the log, so no leader can be
 *       elected later that counts this member's vote. (Leaving, rather than only stopping to vote,
 *       also makes the leader forget how far the old incarnation's log reached.)</li>
 *   <li><b>Give it the group as a learner.</b> Only then is the group created on the member, with
 *       it marked as a listener there: it never votes and never stands for election.</li>
 *   <li><b>Take it back in as a learner</b> in a second committed change: it receives a snapshot
 *       and the log like a follower.</li>
 *   <li><b>Promote.</b> Once its applied index has reached the commit index the leader had when it
 *       first saw it learning, and is within {@link #CAUGHT_UP_GAP} entries of the current one, it
 *       becomes a voter again.</li>
 * </ol>
 *
 * A member that keeps refusing the group (a node of another cluster on a member's address) stays
 * a learner; it is taken out and in again at most every {@link #RETRY_READMISSION_NANOS} ns.
 * Steps 1–3 run back to back; a leader that dies between 1 and 3 leaves the member outside the
 * configuration (safe, one member short): add it again with {@code POST /api/v1/admin/members}.
 * With no quorum of intact voters there is no leader, so nothing here runs and the cluster stays
 * unavailable rather than forget. A member that does not answer is left alone: it may hold data.
 */
final class Readmission {
    private static final Logger LOG = LoggerFactory.getLogger(Readmission.class);
    static final long CAUGHT_UP_GAP = 100;

    /** How long a member that did not take the group waits before it is taken out and in again. */
    static final long RETRY_READMISSION_NANOS = 30_000_000_000L;

    private final ReplicatedKv kv;
    private final MemberProbe probe;
    /** Per learner: the commit index it must reach first (the leader's, when this leader first saw it learning). */
    private final Map<RaftPeerId, Long> catchUpTarget = new HashMap<>();
    /** Per member: when it was last taken out and in again, to pace a member that keeps refusing the group. */
    private final Map<RaftPeerId, Long> lastReadmission = new HashMap<>();
    private String lastFailure = "";

    Readmission(ReplicatedKv kv) {
        this.kv = kv;
        this.probe = new MemberProbe(kv);
    }

    /** Ids of the members being re-admitted (listeners of the configuration), sorted. */
    static List<String> readmitting(RaftConfiguration conf) {
        return conf.getCurrentPeers(RaftPeerRole.LISTENER).stream().map(p -> p.getId().toString()).sorted().toList();
    }

    /** One round on the leader: at most one member re-admitted or promoted. */
    void run(RaftServer.Division leader) {
        RaftConfiguration conf = leader.getRaftConf();
        if (!conf.getPreviousPeers().isEmpty()) return; // a change is under way
        List<RaftPeer> voters = sorted(conf.getCurrentPeers(RaftPeerRole.FOLLOWER));
        List<RaftPeer> listeners = sorted(conf.getCurrentPeers(RaftPeerRole.LISTENER));
        try {
            for (RaftPeer listener : listeners) {
                MemberProbe.Holding holding = probe.probe(listener);
                long commit = leader.getRaftLog().getLastCommittedIndex();
                if (holding instanceof MemberProbe.Holding.NoGroup) {
                    Long last = lastReadmission.get(listener.getId());
                    if (last != null && System.nanoTime() - last < RETRY_READMISSION_NANOS) {
                        // Never acknowledged anything since it was taken back in: giving it the group is enough.
                        giveGroup(listener, voters, listeners);
                    } else {
                        readmit(listener, voters, without(listeners, listener));
                    }
                    return;
                }
                if (holding instanceof MemberProbe.Holding.Holds h) {
                    long target = catchUpTarget.computeIfAbsent(listener.getId(), id -> commit);
                    if (h.appliedIndex() >= target && h.appliedIndex() >= commit - CAUGHT_UP_GAP) {
                        List<RaftPeer> newVoters = new ArrayList<>(voters);
                        newVoters.add(withRole(listener, RaftPeerRole.FOLLOWER));
                        change(voters, listeners, newVoters, without(listeners, listener));
                        catchUpTarget.remove(listener.getId());
                        lastReadmission.remove(listener.getId());
                        LOG.info("member {} caught up (applied {} of {}): it votes again", listener.getId(), h.appliedIndex(), commit);
                        return;
                    }
                }
            }
            for (RaftPeer voter : voters) {
                if (voter.getId().equals(kv.selfId())) continue;
                if (probe.probe(voter) instanceof MemberProbe.Holding.NoGroup) {
                    LOG.warn("member {} answers without any data of this cluster (a lost or new disk): it stops voting"
                            + " and is re-admitted as a new incarnation", voter.getId());
                    readmit(voter, without(voters, voter), listeners);
                    return;
                }
            }
            lastFailure = "";
        } catch (IOException | RuntimeException e) {
            String failure = e.getMessage();
            if (!String.valueOf(failure).equals(lastFailure)) LOG.warn("re-admission step failed, will retry: {}", failure);
            lastFailure = String.valueOf(failure);
        }
    }

    /**
     * Steps 1–3 for {@code member}; {@code voters} and {@code listeners} are the configuration
     * without it. Whether or not the member took the group, it is taken back in as a learner, so
     * the intent stays in the configuration for the next round.
     */
    private void readmit(RaftPeer member, List<RaftPeer> voters, List<RaftPeer> listeners) {
        lastReadmission.put(member.getId(), System.nanoTime());
        catchUpTarget.remove(member.getId());
        RaftConfiguration now = kv.division().getRaftConf();
        change(sorted(now.getCurrentPeers(RaftPeerRole.FOLLOWER)), sorted(now.getCurrentPeers(RaftPeerRole.LISTENER)), voters, listeners);
        RaftPeer learner = withRole(member, RaftPeerRole.LISTENER);
        List<RaftPeer> withLearner = new ArrayList<>(listeners);
        withLearner.add(learner);
        try {
            giveGroup(learner, voters, withLearner);
        } catch (IOException | RuntimeException e) {
            LOG.warn("member {} did not take the group yet ({}); it stays a learner and is tried again", member.getId(), e.getMessage());
        }
        change(voters, listeners, voters, withLearner);
    }

    /** Creates the group on a learner, marking it a listener there too, so it starts as one. */
    private void giveGroup(RaftPeer learner, List<RaftPeer> voters, List<RaftPeer> listeners) throws IOException {
        List<RaftPeer> peers = new ArrayList<>(voters);
        for (RaftPeer l : listeners) peers.add(withRole(l, RaftPeerRole.LISTENER));
        try (RaftClient direct = kv.newClient(List.of(learner), RetryPolicies.noRetry())) {
            RaftClientReply reply = direct.getGroupManagementApi(learner.getId()).add(RaftGroup.valueOf(kv.groupId(), peers));
            if (!reply.isSuccess()) throw new IOException(String.valueOf(reply.getException()));
        }
        LOG.info("gave member {} the group as a learner; it catches up from the leader", learner.getId());
    }

    /**
     * A configuration change sent to this node itself, the leader: the node's shared client may
     * first try a member that lost its disk (it answers that it has no such group, and is no leader).
     */
    private void change(List<RaftPeer> voters, List<RaftPeer> listeners, List<RaftPeer> newVoters, List<RaftPeer> newListeners) {
        RaftPeer self = kv.division().getPeer();
        try (RaftClient toSelf = kv.newClient(List.of(self), RetryPolicies.noRetry())) {
            change(toSelf, voters, listeners, newVoters, newListeners);
        } catch (IOException e) {
            throw ReplicatedKv.unavailable(e);
        }
    }

    private static void change(RaftClient client, List<RaftPeer> voters, List<RaftPeer> listeners, List<RaftPeer> newVoters,
                               List<RaftPeer> newListeners) {
        ReplicatedKv.call(() -> client.admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
                .setServersInCurrentConf(voters).setListenersInCurrentConf(listeners)
                .setServersInNewConf(newVoters).setListenersInNewConf(newListeners)
                .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET).build()));
    }

    static RaftPeer withRole(RaftPeer peer, RaftPeerRole role) {
        return RaftPeer.newBuilder(peer).setStartupRole(role).build();
    }

    private static List<RaftPeer> without(List<RaftPeer> peers, RaftPeer gone) {
        return peers.stream().filter(p -> !p.getId().equals(gone.getId())).toList();
    }

    private static List<RaftPeer> sorted(java.util.Collection<RaftPeer> peers) {
        List<RaftPeer> list = new ArrayList<>(peers);
        list.sort(Comparator.comparing(p -> p.getId().toString()));
        return list;
    }
}
