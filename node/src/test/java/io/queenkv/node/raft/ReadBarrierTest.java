package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

/**
 * The sharing of ReadIndex rounds against rounds that complete when the test says: a read never
 * rides on a round that started before it arrived, one round serves every read that arrived before
 * it started, and a failed round fails only its own reads.
 */
class ReadBarrierTest {
    /** Records each round started; a round completes when the test completes its future. */
    final List<CompletableFuture<Void>> rounds = new ArrayList<>();
    final ReadBarrier barrier = new ReadBarrier(this::startRound, Runnable::run);

    private synchronized CompletionStage<?> startRound() {
        CompletableFuture<Void> round = new CompletableFuture<>();
        rounds.add(round);
        return round;
    }

    @Test
    void aReadThatFindsNoRoundInFlightStartsOne() {
        CompletableFuture<Void> read = barrier.pass();
        assertThat(rounds).hasSize(1);
        assertThat(read).isNotDone();
        rounds.get(0).complete(null);
        assertThat(read).isCompleted();
        assertThat(barrier.rounds()).isEqualTo(1);
    }

    @Test
    void readsArrivingDuringARoundWaitForTheNextOneAndShareIt() {
        CompletableFuture<Void> first = barrier.pass();
        List<CompletableFuture<Void>> later = new ArrayList<>();
        for (int i = 0; i < 5; i++) later.add(barrier.pass());
        assertThat(rounds).as("no round starts while one is in flight").hasSize(1);

        rounds.get(0).complete(null);
        assertThat(first).isCompleted();
        assertThat(later).as("the round in flight may have started before they arrived").allMatch(f -> !f.isDone());
        assertThat(rounds).as("the next round starts when the one in flight completes").hasSize(2);

        rounds.get(1).complete(null);
        assertThat(later).allMatch(CompletableFuture::isDone);
        assertThat(barrier.rounds()).isEqualTo(2);
        assertThat(barrier.readsPassed()).isEqualTo(6);
    }

    @Test
    void aReadArrivingAfterTheLastRoundCompletedStartsAFreshOne() {
        barrier.pass();
        rounds.get(0).complete(null);
        CompletableFuture<Void> read = barrier.pass();
        assertThat(rounds).hasSize(2);
        assertThat(read).isNotDone();
    }

    @Test
    void aFailedRoundFailsItsReadsAndTheNextRoundStillRuns() {
        CompletableFuture<Void> first = barrier.pass();
        CompletableFuture<Void> second = barrier.pass();
        rounds.get(0).completeExceptionally(new IOException("no leader"));
        assertThat(first).isCompletedExceptionally();
        assertThat(second).isNotDone();
        rounds.get(1).complete(null);
        assertThat(second).isCompleted();
    }

    @Test
    void aRoundThatThrowsWhenStartedFailsItsReadsAndFreesTheBarrier() {
        ReadBarrier throwing = new ReadBarrier(() -> {
            throw new IllegalStateException("server closed");
        }, Runnable::run);
        assertThat(throwing.pass()).isCompletedExceptionally();
        assertThat(throwing.pass()).as("the next read starts a round of its own").isCompletedExceptionally();
        assertThat(throwing.rounds()).isEqualTo(2);
    }

    @Test
    void whatFollowsARoundRunsOnTheExecutorNeverOnTheThreadThatCompletedIt() {
        List<Runnable> queued = new ArrayList<>();
        ReadBarrier queuing = new ReadBarrier(this::startRound, queued::add);
        CompletableFuture<Void> first = queuing.pass();
        CompletableFuture<Void> second = queuing.pass();
        rounds.get(0).complete(null);
        assertThat(first).as("not answered on the completing thread").isNotDone();
        assertThat(rounds).as("nor the next round started there (Ratis completes rounds inside its locks)").hasSize(1);
        queued.remove(0).run();
        assertThat(first).isCompleted();
        assertThat(rounds).hasSize(2);
        rounds.get(1).complete(null);
        queued.remove(0).run();
        assertThat(second).isCompleted();
    }
}
