package io.queenkv.node.raft;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.Outcome;

/**
 * Group commit. A write call that arrives while a group is being replicated waits; when that group
 * is answered, every call waiting by then goes as the next group,
 * one {@link Entry.WriteCalls} log entry. Under load one Raft round, one log append and one fsync
 * serve many calls; a call that finds a group free goes at once, and alone, as before.
 *
 * <p>A group holds at most {@link #MAX_CALLS} calls and {@link #MAX_BYTES} bytes (a larger call goes
 * alone). While groups cannot go ({@link Sender#groupsAllowed()}: a member runs an earlier version)
 * every call goes at once on its own, with no bound but the HTTP layer's.
 */
final class GroupCommit {
    /**
     * One: the larger the groups, the less each call costs, and a second group in flight halved them
     * (bench: puts through all members 0.08-0.10x etcd with two, 0.14-0.23x with one, 0.07x with four).
     */
    static final int GROUPS_IN_FLIGHT = 1;
    static final int MAX_CALLS = 256;
    static final int MAX_BYTES = 1 << 20;

    /** A call waiting to go: as encoded for the log, and the future its caller waits on. */
    record Pending(Entry.WriteCall call, byte[] encoded, CompletableFuture<Outcome> outcome) {}

    /** Where groups go: this node's own Raft server on the leader, the leader through the client elsewhere. */
    interface Sender {
        boolean groupsAllowed();

        /** Sends one group (one call or more), completes each call's future, and completes when the group is answered. */
        CompletionStage<?> send(List<Pending> group);
    }

    private final Sender sender;
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    private int inFlight;
    private final AtomicLong groupsSent = new AtomicLong(), callsSentInGroups = new AtomicLong();

    GroupCommit(Sender sender) {
        this.sender = sender;
    }

    CompletableFuture<Outcome> add(Pending call) {
        if (!sender.groupsAllowed()) {
            send(List.of(call), false);
            return call.outcome();
        }
        List<Pending> group;
        synchronized (this) {
            waiting.add(call);
            if (inFlight >= GROUPS_IN_FLIGHT) return call.outcome();
            inFlight++;
            group = nextGroup();
        }
        send(group, true);
        return call.outcome();
    }

    /** Groups of more than one call sent so far (metrics). */
    long groupsSent() {
        return groupsSent.get();
    }

    /** Calls sent in those groups (metrics). */
    long callsSentInGroups() {
        return callsSentInGroups.get();
    }

    /** {@code inFlight}: the group holds one of the {@link #GROUPS_IN_FLIGHT} places, and passes it on when answered. */
    private void send(List<Pending> group, boolean inFlight) {
        if (group.size() > 1) {
            groupsSent.incrementAndGet();
            callsSentInGroups.addAndGet(group.size());
        }
        CompletionStage<?> answered;
        try {
            answered = sender.send(group);
        } catch (RuntimeException e) {
            for (Pending p : group) p.outcome().completeExceptionally(e);
            answered = CompletableFuture.completedFuture(null);
        }
        if (inFlight) answered.whenComplete((ignored, failure) -> sendNext());
    }

    private void sendNext() {
        List<Pending> group;
        synchronized (this) {
            group = nextGroup();
            if (group.isEmpty()) {
                inFlight--;
                return;
            }
        }
        send(group, true);
    }

    /** The calls waiting longest, up to the limits; a call whose caller gave up while it waited is dropped. */
    private List<Pending> nextGroup() {
        List<Pending> group = new ArrayList<>();
        long bytes = 0;
        while (!waiting.isEmpty() && group.size() < MAX_CALLS) {
            if (waiting.peek().outcome().isDone()) {
                waiting.poll();
                continue;
            }
            int size = waiting.peek().encoded().length;
            if (!group.isEmpty() && bytes + size > MAX_BYTES) break;
            group.add(waiting.poll());
            bytes += size;
        }
        return group;
    }
}
