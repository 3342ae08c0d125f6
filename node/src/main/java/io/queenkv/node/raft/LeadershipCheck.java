package io.queenkv.node.raft;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.LogAppender;

import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;

/**
 * Confirms, for linearizable reads, that this node still led after a given moment — Raft's rule
 * that a leader exchanges heartbeats with a majority before it answers a read.
 *
 * <p>Why it exists: Ratis 3.3 answers a ReadIndex at a commit index a majority has already
 * acknowledged without asking the followers again. A leader that was paused or cut off, whose commit
 * index has not moved since, then answers reads from its old state while a new leader acknowledges
 * writes (DeposedLeaderReadTest).
 *
 * <p>The algorithm, one round per {@link #confirm} call (which comes after the reads it serves arrived):
 * <ol>
 *   <li>the round notes, for each follower's log appender, the call id its next append will carry,
 *       and asks each for a heartbeat (an append in flight for entries serves as well);</li>
 *   <li>a follower acknowledges the round with a successful reply to a call at or after that id: it
 *       accepted this node's term then, so it had not voted in a later one;</li>
 *   <li>the round passes once the followers that acknowledged it, with this node, make a majority
 *       of the voters (of both halves of a joint configuration). It fails when this node stops
 *       leading ({@link #steppedDown}) or was not the leader of the asked term when it began.</li>
 * </ol>
 * A leader of a later term needs the votes of a majority, which shares a member with the round's
 * majority; so none existed when the round began, and no write acknowledged before then is missing
 * from this node's commit index. No clock is trusted.
 */
final class LeadershipCheck {
    private final RaftPeerId self;
    private final Supplier<Optional<RaftServer.Division>> division;
    /** The log appenders of this node's current term as leader; replaced when a new term starts them. */
    private volatile Appenders appenders = new Appenders(-1, Map.of());
    private final Set<Round> open = ConcurrentHashMap.newKeySet();

    private record Appenders(long term, Map<RaftPeerId, LogAppender> byFollower) {}

    LeadershipCheck(RaftPeerId self, Supplier<Optional<RaftServer.Division>> division) {
        this.self = self;
        this.division = division;
    }

    /** Completes once a majority confirmed that this node leads in {@code term} after this call; fails with a {@link Refusal} otherwise. */
    CompletableFuture<Void> confirm(long term) {
        Optional<RaftServer.Division> d = division.get();
        if (d.isEmpty() || !d.get().getInfo().isLeader() || d.get().getInfo().getCurrentTerm() != term)
            return CompletableFuture.failedFuture(notLeading());
        RaftConfiguration conf = d.get().getRaftConf();
        // A leader alone in its configuration has no appenders; one of an earlier term's never count.
        Appenders current = appenders;
        Map<LogAppender, Long> firstCallIds = new HashMap<>();
        if (current.term() == term)
            for (LogAppender appender : current.byFollower().values()) firstCallIds.put(appender, appender.getCallId());
        Round round = new Round(conf.getCurrentPeers(), conf.getPreviousPeers(), firstCallIds);
        open.add(round);
        if (round.passed()) {
            open.remove(round);
            round.done.complete(null);
            return round.done;
        }
        for (LogAppender appender : firstCallIds.keySet()) appender.triggerHeartbeat();
        // A step-down between the checks above and open.add left this round to no one: look again.
        if (!d.get().getInfo().isLeader() || d.get().getInfo().getCurrentTerm() != term) fail(round);
        return round.done;
    }

    /** A log appender of this node as leader started (a new term starts one per follower; a restarted one replaces its follower's). */
    void appenderStarted(RaftServer.Division leader, LogAppender appender) {
        long term = leader.getInfo().getCurrentTerm();
        synchronized (this) {
            Appenders current = appenders;
            Map<RaftPeerId, LogAppender> byFollower = new HashMap<>(current.term() == term ? current.byFollower() : Map.of());
            byFollower.put(appender.getFollowerId(), appender);
            appenders = new Appenders(term, Map.copyOf(byFollower));
        }
    }

    /** A follower answered an append of this node as leader. */
    void replied(LogAppender appender, AppendEntriesReplyProto reply) {
        if (open.isEmpty() || !reply.getServerReply().getSuccess()) return;
        long callId = reply.getServerReply().getCallId();
        for (Round round : open) {
            if (round.acknowledged(appender, callId) && open.remove(round)) round.done.complete(null);
        }
    }

    /** This node stopped leading: every round still open fails. */
    void steppedDown() {
        for (Round round : open) fail(round);
    }

    private void fail(Round round) {
        if (open.remove(round)) round.done.completeExceptionally(notLeading());
    }

    private static Refusal notLeading() {
        return new Refusal(Reason.KV_NO_LEADER, "this node is no longer the Raft leader");
    }

    /** One confirmation: the voters it needs and the followers that acknowledged it. */
    private final class Round {
        final Set<RaftPeerId> voters, previousVoters;
        final Map<LogAppender, Long> firstCallIds;
        final Set<RaftPeerId> acknowledged = new HashSet<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();

        Round(Collection<RaftPeer> voters, Collection<RaftPeer> previousVoters, Map<LogAppender, Long> firstCallIds) {
            this.voters = ids(voters);
            this.previousVoters = ids(previousVoters);
            this.firstCallIds = firstCallIds;
            acknowledged.add(self);
        }

        /** Takes a successful reply to call {@code callId} of {@code appender}; answers whether the round passed with it. */
        synchronized boolean acknowledged(LogAppender appender, long callId) {
            Long first = firstCallIds.get(appender);
            if (first == null || appender.getCallIdComparator().compare(callId, first) < 0) return false;
            acknowledged.add(appender.getFollowerId());
            return passed();
        }

        synchronized boolean passed() {
            return majority(voters) && (previousVoters.isEmpty() || majority(previousVoters));
        }

        private boolean majority(Set<RaftPeerId> of) {
            return of.stream().filter(acknowledged::contains).count() * 2 > of.size();
        }

        private static Set<RaftPeerId> ids(Collection<RaftPeer> peers) {
            Set<RaftPeerId> ids = new HashSet<>();
            for (RaftPeer p : peers) ids.add(p.getId());
            return ids;
        }
    }
}
