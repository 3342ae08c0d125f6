package io.queenkv.node.raft;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
import org.apache.ratis.server.RaftServerConfigKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's repair of members that lost their data. A member restarted on an empty data dir
 * holds no group ({@link Admission}), so it cannot vote; this brings it back as a new incarnation.
 * One step per round, each a compare-and-set on the configuration this leader sees:
 *
 * <ol>
 *   <li><b>Demote.</b> A voter that answers on its Raft port without the group lost its log: it
 *       becomes a listener (a non-voting learner) in one committed change. The change commits on a
 *       majority of the remaining voters, all of which hold the log, so no leader can be elected
 *       later that counts this member's vote. Being a listener keeps the intent in the
 *       configuration: any later leader carries on from here. It is started only while a majority
 *       of the voters (this leader among them) hold the group and follow this leader: they answer
 *       holding it and answered this leader's last appends within the shortest election timeout. A
 *       member just back from a restart answers before it follows, and a leader about to lose its
 *       majority still leads; a change it started could not commit, and would stay last in its log
 *       and block later elections.</li>
 *   <li><b>Give it the group</b>, marked as a listener there too, so it never votes or stands for
 *       election. A node that refuses the group (one of another cluster on a member's address)
 *       stays a listener that receives nothing.</li>
 *   <li><b>Take it out and back in as a voter.</b> Leaving the configuration makes the leader
 *       forget how far the old incarnation's log reached; Ratis then stages the member as a new
 *       peer: it receives a snapshot and the log and only becomes a voter once caught up.</li>
 * </ol>
 *
 * A leader may die between any two steps; the next one carries on from what it sees:
 *
 * <ul>
 *   <li>a listener that holds the group is promoted once its applied index reached the commit index
 *       this leader saw first (and is within {@link #CAUGHT_UP_GAP});</li>
 *   <li>a member outside the configuration that answers holding the group <em>as a listener</em> was
 *       taken out and not yet back in: it is taken back in (staged, as in step 3). Only re-admission
 *       makes listeners, so a member an admin removed (a voter when it left) is never brought back.
 *       Candidates are the configured peers and every member this node saw in a configuration since
 *       it started.</li>
 *   <li>such a member that restarted before that answers as a follower (Ratis does not run a server
 *       its own configuration leaves out, and reports no listener). It asks to be taken back in itself
 *       ({@link #askToBeTakenBackIn}) when it holds the {@link PendingReadmission} mark, set when it
 *       waited for admission and cleared once a committed configuration counts it as a voter; a
 *       voter an admin removed holds none.</li>
 * </ul>
 *
 * With no quorum of intact voters there is no leader, so nothing here runs and the cluster stays
 * unavailable rather than forget. A member that does not answer is left alone: it may hold data.
 */
final class Readmission {
    private static final Logger LOG = LoggerFactory.getLogger(Readmission.class);
    static final long CAUGHT_UP_GAP = 100;
    /** How long a configuration change that stages a member may take before this round stops waiting. */
    private static final long STAGING_WAIT_MS = 30_000;

    private final ReplicatedKv kv;
    private final MemberProbe probe;
    /** Per learner: the commit index it must reach first (the leader's, when this leader first saw it learning). */
    private final Map<RaftPeerId, Long> catchUpTarget = new HashMap<>();
    /**
     * Per member: when it was last offered the group (a learner without it) or probed from outside the
     * configuration, or, for this member, when it last asked to be taken back in, so one that refuses,
     * or is down, costs a call only now and then.
     */
    private final Map<RaftPeerId, Long> lastAsked = new HashMap<>();
    static final long OFFER_EVERY_NANOS = 5_000_000_000L;
    /** Every member seen in a configuration or configured, by id: where a member left outside may be found. */
    private final Map<RaftPeerId, RaftPeer> known = new HashMap<>();
    private final PendingReadmission pending;
    private String lastFailure = "";

    Readmission(ReplicatedKv kv) {
        this.kv = kv;
        this.probe = new MemberProbe(kv);
        this.pending = kv.pendingReadmission();
        for (RaftPeer peer : ReplicatedKv.toPeers(kv.config().peers())) known.put(peer.getId(), peer);
    }

    /** Called every round on every member, leader or not, so a later leader knows who was in the group. */
    void observe(RaftConfiguration conf) {
        for (RaftPeer peer : conf.getAllPeers()) known.put(peer.getId(), withRole(peer, RaftPeerRole.FOLLOWER));
    }

    /**
     * Called every round on every member, leader or not. While this member holds the
     * {@link PendingReadmission} mark: clears it once a committed configuration counts the member as
     * a voter (should the state machine not have cleared it as it applied that configuration); when
     * its own configuration leaves it out (it restarted after a leader took it out), asks the leader
     * (every {@link #OFFER_EVERY_NANOS} at most) whether the leader's configuration holds it, and when
     * it does not, asks to be taken back in, staged as a new peer. A member an admin added never asks:
     * the group it was given holds it, and the configuration that added it cleared the mark.
     */
    void askToBeTakenBackIn(RaftServer.Division self) {
        RaftConfiguration conf = self.getRaftConf();
        try {
            pending.clearIfVoting(self);
            if (!pending.marked()) return;
            // As this member advertises itself (outside the configuration, Ratis knows only its bind address).
            RaftPeer me = ReplicatedKv.toPeers(List.of(kv.config().self())).get(0);
            boolean inOwn = Stream.of(RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER)
                    .anyMatch(role -> conf.getCurrentPeers(role).stream().anyMatch(p -> p.getId().equals(me.getId())));
            if (inOwn || !due(me)) return;
            Map<RaftPeerId, RaftPeer> askable = new HashMap<>();
            for (RaftPeer p : ReplicatedKv.toPeers(kv.config().peers())) askable.put(p.getId(), p);
            for (RaftPeer p : conf.getAllPeers()) askable.put(p.getId(), p);
            askable.remove(me.getId());
            MemberProbe.LeaderView view = probe.leaderView(sorted(askable.values()), me.getId()).orElse(null);
            if (view == null || view.holdsMember() || view.changing()) return;
            LOG.warn("the leader's configuration leaves out this member, which it was re-admitting (a leader stopped"
                    + " half-way): it asks to be taken back in");
            try (RaftClient toLeader = kv.newClient(List.of(view.leader()), RetryPolicies.noRetry(), STAGING_WAIT_MS)) {
                ReplicatedKv.call(() -> toLeader.admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
                        .setServersInNewConf(List.of(withRole(me, RaftPeerRole.FOLLOWER)))
                        .setMode(SetConfigurationRequest.Mode.ADD).build()));
            }
            LOG.info("taken back in as a new incarnation: this member votes again");
        } catch (IOException | RuntimeException e) {
            warnOnce("asking to be taken back in failed, will retry: {}", e);
        }
    }

    /**
     * Called every round on every member. Ratis closes a server of the group that runs outside the
     * configuration when it stands for election: a member being re-admitted that a leader's leftover
     * appender ({@link LeftoverAppenders}) fed the log, once that leader stopped leading. While this
     * member holds the {@link PendingReadmission} mark it opens the group again from its storage, as a
     * restart would: outside the configuration, voting for nobody, it then asks to be taken back in.
     * Answers whether it did.
     */
    boolean reopenIfClosed() {
        if (!pending.marked()) return false;
        try {
            if (!kv.reopenClosedGroup()) return false;
            LOG.warn("Ratis closed this member's server for the group (it ran outside the configuration, waiting to be"
                    + " taken back in): opened it again from its storage");
            return true;
        } catch (IOException | RuntimeException e) {
            warnOnce("opening the group again failed, will retry: {}", e);
            return false;
        }
    }

    /** Logs a failure that repeats every round once, until another failure or a success comes between. */
    private void warnOnce(String message, Exception e) {
        warnOnce(message, String.valueOf(e.getMessage()));
    }

    private void warnOnce(String message, Object detail) {
        String failure = message + detail;
        if (!failure.equals(lastFailure)) LOG.warn(message, detail);
        lastFailure = failure;
    }

    /** Ids of the members being re-admitted (listeners of the configuration), sorted. */
    static List<String> readmitting(RaftConfiguration conf) {
        return conf.getCurrentPeers(RaftPeerRole.LISTENER).stream().map(p -> p.getId().toString()).sorted().toList();
    }

    /** One round on the leader: at most one step for one member. */
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
                    if (!due(listener)) continue;
                    giveGroup(listener, voters, listeners);
                    catchUpTarget.remove(listener.getId());
                    List<RaftPeer> others = without(listeners, listener);
                    change(voters, listeners, voters, others);
                    takeBackIn(voters, others, listener);
                    return;
                }
                if (holding instanceof MemberProbe.Holding.Holds h) {
                    long target = catchUpTarget.computeIfAbsent(listener.getId(), id -> commit);
                    if (h.appliedIndex() >= target && h.appliedIndex() >= commit - CAUGHT_UP_GAP) {
                        List<RaftPeer> newVoters = new ArrayList<>(voters);
                        newVoters.add(withRole(listener, RaftPeerRole.FOLLOWER));
                        change(voters, listeners, newVoters, without(listeners, listener));
                        catchUpTarget.remove(listener.getId());
                        LOG.info("member {} caught up (applied {} of {}): it votes again", listener.getId(), h.appliedIndex(), commit);
                        return;
                    }
                }
            }
            List<RaftPeer> blank = new ArrayList<>();
            Set<RaftPeerId> following = following(leader);
            int intact = 1; // this leader
            for (RaftPeer voter : voters) {
                if (voter.getId().equals(kv.selfId())) continue;
                MemberProbe.Holding holding = probe.probe(voter);
                if (holding instanceof MemberProbe.Holding.NoGroup) blank.add(voter);
                if (holding instanceof MemberProbe.Holding.Holds && following.contains(voter.getId())) intact++;
            }
            if (!blank.isEmpty()) {
                if (intact < voters.size() / 2 + 1) {
                    // This leader may lead on for an election timeout without a majority. The change could not
                    // commit, and its entry, left last in this log, would need a blank member's vote in every
                    // later election: the cluster could not recover even once an intact member came back.
                    warnOnce("members {} answer without data, and only " + intact + " of " + voters.size() + " voters hold"
                            + " it and follow this leader: no one is demoted until a majority does", blank.stream().map(RaftPeer::getId).toList());
                    return;
                }
                RaftPeer voter = blank.get(0);
                LOG.warn("member {} answers without any data of this cluster (a lost or new disk): it stops voting"
                        + " and is re-admitted as a new incarnation", voter.getId());
                List<RaftPeer> newListeners = new ArrayList<>(listeners);
                newListeners.add(withRole(voter, RaftPeerRole.LISTENER));
                change(voters, listeners, without(voters, voter), newListeners);
                return;
            }
            for (RaftPeer outside : outside(conf)) {
                if (!due(outside)) continue;
                if (probe.probe(outside) instanceof MemberProbe.Holding.Holds h && h.listener()) {
                    LOG.warn("member {} holds the group as a listener outside the configuration (an earlier leader stopped"
                            + " half-way through re-admitting it): it is taken back in", outside.getId());
                    takeBackIn(voters, listeners, outside);
                    return;
                }
            }
            lastFailure = "";
        } catch (IOException | RuntimeException e) {
            warnOnce("re-admission step failed, will retry: {}", e);
        }
    }

    /**
     * Whether {@code member} may be asked now (not within {@link #OFFER_EVERY_NANOS} of the last time);
     * records this time. A step that succeeds clears it ({@link #takeBackIn}).
     */
    private boolean due(RaftPeer member) {
        Long last = lastAsked.get(member.getId());
        if (last != null && System.nanoTime() - last < OFFER_EVERY_NANOS) return false;
        lastAsked.put(member.getId(), System.nanoTime());
        return true;
    }

    /** The members that answered this leader's appends within the shortest election timeout. */
    private Set<RaftPeerId> following(RaftServer.Division leader) {
        long within = RaftServerConfigKeys.Rpc.timeoutMin(kv.server().getProperties()).toLong(TimeUnit.MILLISECONDS);
        Set<RaftPeerId> ids = new HashSet<>();
        for (var follower : leader.getInfo().getRoleInfoProto().getLeaderInfo().getFollowerInfoList())
            if (follower.getLastRpcElapsedTimeMs() < within) ids.add(RaftPeerId.valueOf(follower.getId().getId()));
        return ids;
    }

    /** Known members that the configuration does not hold, sorted. */
    private List<RaftPeer> outside(RaftConfiguration conf) {
        return sorted(known.values().stream().filter(p -> conf.getPeer(p.getId(), RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) == null).toList());
    }

    /** Creates the group on a learner, marking every listener (it too) a listener there, so it starts as one. */
    private void giveGroup(RaftPeer learner, List<RaftPeer> voters, List<RaftPeer> listeners) throws IOException {
        List<RaftPeer> peers = new ArrayList<>(voters);
        for (RaftPeer l : listeners) peers.add(withRole(l, RaftPeerRole.LISTENER));
        try (RaftClient direct = kv.newClient(List.of(learner), RetryPolicies.noRetry())) {
            RaftClientReply reply = direct.getGroupManagementApi(learner.getId()).add(RaftGroup.valueOf(kv.groupId(), peers));
            if (!reply.isSuccess()) throw new IOException("member " + learner.getId() + " did not take the group: " + reply.getException());
        } catch (IOException e) {
            throw new IOException("member " + learner.getId() + " did not take the group: " + e.getMessage(), e);
        }
        LOG.info("gave member {} the group as a learner; it catches up from the leader", learner.getId());
    }

    /**
     * A configuration change sent to this node itself, the leader: the node's shared client may
     * first try a member that lost its disk (it answers that it has no such group, and is no leader).
     */
    private void change(List<RaftPeer> voters, List<RaftPeer> listeners, List<RaftPeer> newVoters, List<RaftPeer> newListeners) {
        try (RaftClient toSelf = kv.newClient(List.of(kv.division().getPeer()), RetryPolicies.noRetry())) {
            change(toSelf, voters, listeners, newVoters, newListeners);
        } catch (IOException e) {
            throw ReplicatedKv.unavailable(e);
        }
    }

    /**
     * Step 3's second half: {@code member} (outside the configuration) back in as a voter. Ratis stages
     * it, a snapshot and the log first, and counts its vote only once it caught up, so this waits up to
     * {@link #STAGING_WAIT_MS}.
     */
    private void takeBackIn(List<RaftPeer> voters, List<RaftPeer> listeners, RaftPeer member) {
        List<RaftPeer> withMember = new ArrayList<>(voters);
        withMember.add(withRole(member, RaftPeerRole.FOLLOWER));
        try (RaftClient toSelf = kv.newClient(List.of(kv.division().getPeer()), RetryPolicies.noRetry(), STAGING_WAIT_MS)) {
            change(toSelf, voters, listeners, withMember, listeners);
        } catch (IOException e) {
            throw ReplicatedKv.unavailable(e);
        }
        lastAsked.remove(member.getId());
        LOG.info("member {} caught up as a new incarnation: it votes again", member.getId());
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
