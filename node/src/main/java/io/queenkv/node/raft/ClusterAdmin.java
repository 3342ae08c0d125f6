package io.queenkv.node.raft;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.TransferLeadershipException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;
import io.queenkv.node.kv.Settings;

/**
 * Membership, leadership, snapshots and settings: the admin operations, each one Raft call (or a
 * short sequence) through this node's client, answering once the change has committed.
 */
public final class ClusterAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterAdmin.class);
    private static final long TIMEOUT_MS = 20_000;
    /** How long {@link #snapshot} waits for the snapshot file of a large store to be written. */
    private static final long SNAPSHOT_TIMEOUT_MS = 120_000;
    /** How long one hand-off to a member may take when any member would do: a few election timeouts. */
    private static final long HAND_OFF_ATTEMPT_MS = 6_000;
    private static final long RETRY_PAUSE_NANOS = 200_000_000L;
    /** How much longer than a transfer's own timeout its caller waits for the answer. */
    private static final long CALL_MARGIN_MS = 2_000;
    /** How Ratis 3.3 words the transfer failures after which it keeps the transfer pending (see {@link #attemptTransfer}). */
    private static final List<String> LEFT_PENDING = List.of("COMPLETED_EXCEPTIONALLY", "NULL_FOLLOWER", "NULL_LOG_APPENDER", "a previous");

    private final ReplicatedKv kv;

    public ClusterAdmin(ReplicatedKv kv) {
        this.kv = kv;
    }

    /** The voting members, as this node sees the committed configuration. */
    public List<RaftPeer> members() {
        List<RaftPeer> peers = new ArrayList<>(kv.division().getRaftConf().getCurrentPeers());
        peers.sort(Comparator.comparing(p -> p.getId().toString()));
        return peers;
    }

    /**
     * Adds a node that runs with no group yet: creates the group on it with the new configuration,
     * then asks the leader to add it. Ratis brings the new member up to date before it votes.
     */
    public List<RaftPeer> addMember(NodeConfig.Peer peer) throws IOException {
        RaftPeer added = ReplicatedKv.toPeers(List.of(peer)).get(0);
        List<RaftPeer> current = members();
        if (current.stream().anyMatch(p -> p.getId().equals(added.getId()))) return current;
        List<RaftPeer> next = new ArrayList<>(current);
        next.add(added);
        try (RaftClient direct = kv.newClient(List.of(added), RetryPolicies.retryUpToMaximumCountWithFixedSleep(5, org.apache.ratis.util.TimeDuration.ONE_SECOND))) {
            RaftClientReply reply = direct.getGroupManagementApi(added.getId()).add(RaftGroup.valueOf(kv.groupId(), next));
            if (!reply.isSuccess() && !String.valueOf(reply.getException()).contains("already exists"))
                throw ReplicatedKv.unavailable(reply.getException());
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("already exists"))
                throw ReplicatedKv.unavailable(e);
        }
        ReplicatedKv.call(() -> kv.client().admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
                .setServersInNewConf(List.of(added)).setMode(SetConfigurationRequest.Mode.ADD).build()));
        return members();
    }

    /**
     * Removes a member (a voter, or a learner being re-admitted), moving leadership off it first.
     * Refuses to remove the last voter. A learner removed is also asked to set its copy of the group
     * aside (renamed, not deleted): a learner outside the configuration that still held the group
     * would look like one a leader left half-way through re-admitting it, and be taken back in.
     */
    public List<RaftPeer> removeMember(String id) throws IOException {
        var conf = kv.division().getRaftConf();
        List<RaftPeer> voters = List.copyOf(conf.getCurrentPeers(RaftPeerRole.FOLLOWER));
        List<RaftPeer> listeners = List.copyOf(conf.getCurrentPeers(RaftPeerRole.LISTENER));
        RaftPeerId target = RaftPeerId.valueOf(id);
        boolean voter = voters.stream().anyMatch(p -> p.getId().equals(target));
        if (!voter && listeners.stream().noneMatch(p -> p.getId().equals(target)))
            throw new Refusal(Reason.NOT_FOUND, "no member '" + id + "'");
        if (voter && voters.size() == 1) throw new Refusal(Reason.KV_BAD_REQUEST, "the last member cannot be removed");
        if (target.equals(kv.division().getInfo().getLeaderId())) transferLeadership(null);
        ReplicatedKv.call(() -> kv.client().admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
                .setServersInCurrentConf(voters).setListenersInCurrentConf(listeners)
                .setServersInNewConf(voters.stream().filter(p -> !p.getId().equals(target)).toList())
                .setListenersInNewConf(listeners.stream().filter(p -> !p.getId().equals(target)).toList())
                .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET).build()));
        if (!voter) listeners.stream().filter(p -> p.getId().equals(target)).findFirst().ifPresent(this::setGroupAside);
        return members();
    }

    private void setGroupAside(RaftPeer learner) {
        try (RaftClient direct = kv.newClient(List.of(learner), RetryPolicies.noRetry())) {
            RaftClientReply reply = direct.getGroupManagementApi(learner.getId()).remove(kv.groupId(), false, true);
            if (!reply.isSuccess()) LOG.warn("removed learner {} kept its copy of the group: {}", learner.getId(), reply.getException());
        } catch (IOException e) {
            LOG.warn("removed learner {} did not answer; stop it or wipe its data dir, or a leader takes it back in: {}",
                    learner.getId(), e.getMessage());
        }
    }

    /** Moves leadership to {@code to}, or to any other member when null. Answers the new leader. */
    public String transferLeadership(String to) throws IOException {
        return transferLeadership(to, TIMEOUT_MS);
    }

    /**
     * As {@link #transferLeadership(String)}, giving up after {@code timeoutMs}. With no member named
     * it tries the likeliest successors in turn, each for a few election timeouts and ranked afresh
     * each time: what the leader knows of a member may be a second old, and a member that died since
     * then must not hold the hand-off up until the whole time has passed.
     */
    public String transferLeadership(String to, long timeoutMs) throws IOException {
        RaftPeerId leader = kv.division().getInfo().getLeaderId();
        if (to != null) {
            RaftPeerId target = RaftPeerId.valueOf(to);
            if (members().stream().noneMatch(p -> p.getId().equals(target)))
                throw new Refusal(Reason.NOT_FOUND, "no member '" + to + "'");
            if (target.equals(leader)) return to;
            try {
                attemptTransfer(leader, target, timeoutMs);
            } catch (IOException e) {
                throw ReplicatedKv.unavailable(e);
            }
            return to;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        Set<RaftPeerId> failed = new HashSet<>();
        IOException lastFailure = null;
        while (System.nanoTime() < deadline) {
            List<RaftPeerId> successors = likeliestSuccessors(leader);
            if (successors.isEmpty()) throw new Refusal(Reason.KV_BAD_REQUEST, "no other member to hand leadership to");
            if (failed.containsAll(successors)) failed.clear();
            RaftPeerId target = successors.stream().filter(id -> !failed.contains(id)).findFirst().orElseThrow();
            long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            try {
                attemptTransfer(leader, target, Math.min(left, HAND_OFF_ATTEMPT_MS));
                return target.toString();
            } catch (IOException e) {
                lastFailure = e;
            }
            failed.add(target);
            // An election can hand leadership to another member than the one asked for; when any
            // member would do, leadership off the old leader is what was wanted.
            RaftPeerId now = kv.division().getInfo().getLeaderId();
            if (now != null && !now.equals(leader)) return now.toString();
            LockSupport.parkNanos(RETRY_PAUSE_NANOS); // a refusal can come at once: do not spin on it
        }
        Refusal gaveUp = lastFailure != null ? ReplicatedKv.unavailable(lastFailure)
                : new Refusal(Reason.KV_TIMEOUT, "leadership did not move within " + timeoutMs + " ms");
        return newLeaderOtherThan(leader).orElseThrow(() -> gaveUp).toString();
    }

    /**
     * Asks {@code leader} once (no retries: a retried transfer only meets its own failure again) to
     * hand leadership to {@code target}; throws unless it did. Ratis 3.3 leaves a transfer pending
     * when it fails at once (its StartLeaderElection call to a member that just went down fails
     * before it looks; no log appender for the member) and clears it only at the next election:
     * until then the leader refuses every write as "stepping down", and every transfer to another
     * member as "a previous request exists". Such a failure makes the leader step down, and the
     * election that follows clears it.
     */
    private void attemptTransfer(RaftPeerId leader, RaftPeerId target, long timeoutMs) throws IOException {
        if (leader == null) throw new Refusal(Reason.KV_NO_LEADER, "no Raft leader is available right now");
        try (RaftClient once = kv.newClient(members(), RetryPolicies.noRetry(), timeoutMs + CALL_MARGIN_MS)) {
            IOException failure;
            try {
                RaftClientReply reply = once.admin().transferLeadership(target, leader, timeoutMs);
                if (reply.isSuccess()) return;
                failure = reply.getException();
            } catch (IOException e) {
                failure = e;
            }
            if (failure instanceof TransferLeadershipException && LEFT_PENDING.stream().anyMatch(String.valueOf(failure.getMessage())::contains)) {
                LOG.warn("a failed leadership transfer was left pending; the leader steps down: {}", failure.getMessage());
                try {
                    RaftClientReply stepped = once.admin().transferLeadership(null, leader, timeoutMs);
                    if (!stepped.isSuccess()) LOG.warn("the leader did not step down: {}", stepped.getException().toString());
                } catch (IOException e) {
                    LOG.warn("the leader did not step down: {}", e.toString());
                }
            }
            throw failure != null ? failure : new IOException("leadership did not move to " + target);
        }
    }

    /**
     * The voters other than {@code leader}, likeliest to take leadership over first. On the leader:
     * those that answered it within an election timeout, the most of the log first, then the rest (a
     * member that is down, or restarted and still catching up, cannot win an election before the
     * transfer times out, and the old leader then wins it again). Elsewhere this node first, a voter
     * that is up since it answers.
     */
    private List<RaftPeerId> likeliestSuccessors(RaftPeerId leader) {
        RaftServer.Division d = kv.division();
        List<RaftPeerId> others = members().stream().map(RaftPeer::getId).filter(id -> !id.equals(leader)).toList();
        if (!d.getInfo().isLeader()) {
            List<RaftPeerId> ordered = new ArrayList<>(others);
            if (ordered.remove(kv.selfId())) ordered.add(0, kv.selfId());
            return ordered;
        }
        var followers = d.getInfo().getRoleInfoProto().getLeaderInfo().getFollowerInfoList();
        long[] matched = d.getInfo().getFollowerMatchIndices();
        // Both lists come from the leader's log appenders in one order; a configuration change in
        // between makes them differ, and then the configuration's order has to do.
        if (matched == null || matched.length != followers.size()) return others;
        long answeredWithinMs = RaftServerConfigKeys.Rpc.timeoutMax(d.getRaftServer().getProperties()).toLong(TimeUnit.MILLISECONDS);
        Map<RaftPeerId, Long> rank = new HashMap<>();
        for (int i = 0; i < matched.length; i++) {
            boolean answering = followers.get(i).getLastRpcElapsedTimeMs() <= answeredWithinMs;
            rank.put(RaftPeerId.valueOf(followers.get(i).getId().getId()), answering ? matched[i] : -1);
        }
        return others.stream().sorted(Comparator.comparingLong((RaftPeerId id) -> rank.getOrDefault(id, -2L)).reversed()).toList();
    }

    /**
     * Takes a snapshot on this node; answers the log index it covers, at least the applied index at
     * the call. The state machine writes snapshot files in the background and Ratis only hears of
     * finished ones, so this asks again until the newest finished one covers that index.
     */
    public long snapshot() throws IOException {
        long applied = kv.division().getInfo().getLastAppliedIndex();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SNAPSHOT_TIMEOUT_MS);
        while (true) {
            // A creation gap of 1: snapshot whenever anything was applied since the last one.
            kv.requestSnapshot(applied);
            ReplicatedKv.call(() -> kv.client().getSnapshotManagementApi(kv.selfId()).create(1, TIMEOUT_MS));
            var latest = kv.division().getStateMachine().getLatestSnapshot();
            long index = latest == null ? 0 : latest.getIndex();
            if (index >= applied) return index;
            if (System.nanoTime() > deadline)
                throw new Refusal(Reason.KV_TIMEOUT, "the snapshot was not written within " + SNAPSHOT_TIMEOUT_MS / 1000 + " s");
            LockSupport.parkNanos(50_000_000L); // the writer runs in the background; nothing here to wait on
        }
    }

    /** Commits new cluster-wide settings; answers the log index from which every node enforces them. */
    public long changeSettings(Settings settings) throws IOException {
        List<String> problems = settings.problems();
        if (!problems.isEmpty()) throw new Refusal(Reason.KV_BAD_REQUEST, String.join("; ", problems));
        return kv.propose(new Entry.ChangeSettings(0, settings)).getLogIndex();
    }

    /** The leader this node sees within a short while, if it is not {@code old}. */
    private Optional<RaftPeerId> newLeaderOtherThan(RaftPeerId old) {
        long deadline = System.nanoTime() + 3_000_000_000L;
        do {
            RaftPeerId now = kv.division().getInfo().getLeaderId();
            if (now != null && !now.equals(old)) return Optional.of(now);
            LockSupport.parkNanos(50_000_000L);
        } while (System.nanoTime() < deadline);
        return Optional.empty();
    }
}
