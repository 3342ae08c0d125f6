package io.queenkv.node.raft;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Linearizable reads share ReadIndex rounds.
 *
 * <p>A read may be answered from this node's state once that state holds every write acknowledged
 * before the read arrived. A ReadIndex round that <em>starts</em> after the read arrived gives that:
 * it completes once this node has applied up to the commit index the leader confirmed at its start.
 * So one round serves every read that arrived before it started:
 * <ol>
 *   <li>a read that finds no round in flight starts one and waits for it;</li>
 *   <li>reads that arrive while a round is in flight wait for the <em>next</em> round, which starts
 *       when the one in flight completes — never for the one in flight, which may have started
 *       before they arrived;</li>
 *   <li>a round that fails fails the reads waiting for it; the next round is started all the same.</li>
 * </ol>
 * Under load one ReadIndex (on a follower, one request to the leader) serves many reads, where each
 * read used to make its own. A round that gets no answer within {@link #ROUND_TIMEOUT_SECONDS} is
 * taken as failed, so a lost answer never holds up the reads behind it.
 *
 * <p>What follows a round — starting the next one, answering the reads — runs on {@code executor},
 * never on the thread that completed the round: Ratis completes a ReadIndex inside its own locks
 * (the leader's heartbeat listeners), and a new ReadIndex started from there waits for the very
 * lock that thread holds.
 */
final class ReadBarrier {
    static final long ROUND_TIMEOUT_SECONDS = 10;

    /** One ReadIndex round on this node's Raft server: completes once this node applied up to its read index. */
    interface Round {
        CompletionStage<?> start();
    }

    private final Round round;
    private final Executor executor;
    private boolean inFlight;
    /** What the reads that arrived during the round in flight wait for; null while none arrived. */
    private CompletableFuture<Void> next;
    private final AtomicLong rounds = new AtomicLong(), readsPassed = new AtomicLong();

    ReadBarrier(Round round, Executor executor) {
        this.round = round;
        this.executor = executor;
    }

    /** Completes when a round that started after this call has completed; fails with that round's failure. */
    CompletableFuture<Void> pass() {
        CompletableFuture<Void> waiting;
        synchronized (this) {
            readsPassed.incrementAndGet();
            if (inFlight) {
                if (next == null) next = new CompletableFuture<>();
                return next;
            }
            inFlight = true;
            waiting = new CompletableFuture<>();
        }
        start(waiting);
        return waiting;
    }

    /** Rounds started so far (metrics). */
    long rounds() {
        return rounds.get();
    }

    /** Reads that waited for a round so far (metrics). */
    long readsPassed() {
        return readsPassed.get();
    }

    private void start(CompletableFuture<Void> waiting) {
        rounds.incrementAndGet();
        CompletableFuture<?> answered;
        try {
            answered = round.start().toCompletableFuture().copy().orTimeout(ROUND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            answered = CompletableFuture.failedFuture(e);
        }
        answered.whenCompleteAsync((ignored, failure) -> finished(waiting, failure), executor);
    }

    /** Starts the next round first, so its ReadIndex is under way while this thread answers the reads of this one. */
    private void finished(CompletableFuture<Void> waiting, Throwable failure) {
        CompletableFuture<Void> following;
        synchronized (this) {
            following = next;
            next = null;
            if (following == null) inFlight = false;
        }
        if (following != null) start(following);
        if (failure == null) waiting.complete(null);
        else waiting.completeExceptionally(failure);
    }
}
