package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.EntryCodec;
import io.queenkv.node.kv.Expiry;
import io.queenkv.node.kv.JsonValue;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Outcome;

/**
 * The queueing of group commit against a sender that answers when the test says: which calls go
 * together, that one group is in flight at a time, and what goes at once.
 */
class GroupCommitTest {
    /** Records each group sent; a group is answered when the test completes its future. */
    static final class HeldSender implements GroupCommit.Sender {
        final List<List<GroupCommit.Pending>> sent = new ArrayList<>();
        final List<CompletableFuture<Void>> answers = new ArrayList<>();
        boolean allowed = true;

        @Override
        public boolean groupsAllowed() {
            return allowed;
        }

        @Override
        public synchronized CompletionStage<?> send(List<GroupCommit.Pending> group) {
            sent.add(group);
            CompletableFuture<Void> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }

        void answer(int group) {
            for (GroupCommit.Pending p : sent.get(group)) p.outcome().complete(new Outcome.Completed(List.of()));
            answers.get(group).complete(null);
        }

        List<Integer> sizes() {
            return sent.stream().map(List::size).toList();
        }
    }

    final HeldSender sender = new HeldSender();
    final GroupCommit groups = new GroupCommit(sender);

    @Test
    void callsArrivingWhileAGroupIsInFlightGoTogetherWhenItIsAnswered() {
        assertThat(GroupCommit.GROUPS_IN_FLIGHT).isEqualTo(1);
        List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
        for (int i = 0; i < 10; i++) outcomes.add(groups.add(pending("k" + i, 10)));

        assertThat(sender.sizes()).containsExactly(1); // the first goes at once, alone
        sender.answer(0);
        assertThat(sender.sizes()).containsExactly(1, 9); // the other nine as one group
        assertThat(outcomes.get(0)).isCompleted();
        assertThat(outcomes.subList(1, 10)).noneMatch(CompletableFuture::isDone);

        outcomes.add(groups.add(pending("late", 10)));
        assertThat(sender.sizes()).hasSize(2); // waits for the group in flight
        sender.answer(1);
        assertThat(sender.sizes()).containsExactly(1, 9, 1);
        sender.answer(2);
        assertThat(outcomes).allMatch(CompletableFuture::isDone);

        outcomes.add(groups.add(pending("idle", 10)));
        assertThat(sender.sizes()).containsExactly(1, 9, 1, 1); // nothing in flight: goes at once
        assertThat(groups.groupsSent()).isEqualTo(1);
        assertThat(groups.callsSentInGroups()).isEqualTo(9);
    }

    @Test
    void aGroupStopsAtItsCallAndByteLimits() {
        groups.add(pending("a", 10));
        for (int i = 0; i < GroupCommit.MAX_CALLS + 5; i++) groups.add(pending("c" + i, 10));
        sender.answer(0);
        assertThat(sender.sizes()).containsExactly(1, GroupCommit.MAX_CALLS);
        sender.answer(1);
        assertThat(sender.sizes()).containsExactly(1, GroupCommit.MAX_CALLS, 5);

        HeldSender bytes = new HeldSender();
        GroupCommit byBytes = new GroupCommit(bytes);
        byBytes.add(pending("a", 10));
        int third = GroupCommit.MAX_BYTES / 3;
        for (int i = 0; i < 4; i++) byBytes.add(pending("big" + i, third));
        byBytes.add(pending("huge", GroupCommit.MAX_BYTES * 2));
        bytes.answer(0);
        // Whole calls only, as many as fit: the first call of the next group would have passed the limit.
        int filled = bytes.sent.get(1).stream().mapToInt(p -> p.encoded().length).sum();
        assertThat(bytes.sent.get(1).size()).isGreaterThan(1);
        bytes.answer(1);
        assertThat(filled + bytes.sent.get(2).get(0).encoded().length).isGreaterThan(GroupCommit.MAX_BYTES);
        for (int g = 2; g < bytes.sent.size(); g++) {
            assertThat(bytes.sent.get(g).size() == 1 || bytes.sent.get(g).stream().mapToInt(p -> p.encoded().length).sum() <= GroupCommit.MAX_BYTES).isTrue();
            bytes.answer(g);
        }
        assertThat(bytes.sent.get(bytes.sent.size() - 1)).extracting(p -> ((Op.Put) p.call().ops().get(0)).key()).containsExactly("huge");
        assertThat(bytes.sent.stream().mapToInt(List::size).sum()).isEqualTo(6);
    }

    @Test
    void aCallWhoseCallerGaveUpWhileItWaitedIsNotSent() {
        groups.add(pending("first", 10));
        CompletableFuture<Outcome> abandoned = groups.add(pending("abandoned", 10));
        CompletableFuture<Outcome> kept = groups.add(pending("kept", 10));
        abandoned.cancel(true);
        sender.answer(0);
        assertThat(sender.sent.get(1)).extracting(p -> ((Op.Put) p.call().ops().get(0)).key()).containsExactly("kept");

        CompletableFuture<Outcome> alsoAbandoned = groups.add(pending("gone", 10));
        alsoAbandoned.cancel(true);
        sender.answer(1);
        assertThat(kept).isCompleted();
        assertThat(sender.sent).hasSize(2); // nothing left worth sending
        groups.add(pending("next", 10));
        assertThat(sender.sent).hasSize(3); // and the place in flight was given back
    }

    @Test
    void whileGroupsCannotGoEveryCallGoesAtOnceAlone() {
        sender.allowed = false;
        for (int i = 0; i < 5; i++) groups.add(pending("k" + i, 10));
        assertThat(sender.sizes()).containsExactly(1, 1, 1, 1, 1);
        assertThat(groups.groupsSent()).isZero();
    }

    @Test
    void aSenderThatThrowsFailsItsCallsAndFreesItsPlace() {
        GroupCommit failing = new GroupCommit(new GroupCommit.Sender() {
            int sends;

            @Override
            public boolean groupsAllowed() {
                return true;
            }

            @Override
            public CompletionStage<?> send(List<GroupCommit.Pending> group) {
                if (sends++ < 2) throw new IllegalStateException("no server");
                for (GroupCommit.Pending p : group) p.outcome().complete(new Outcome.Completed(List.of()));
                return CompletableFuture.completedFuture(null);
            }
        });
        assertThat(failing.add(pending("a", 10))).isCompletedExceptionally();
        assertThat(failing.add(pending("b", 10))).isCompletedExceptionally();
        assertThat(failing.add(pending("c", 10))).isCompleted().isNotCompletedExceptionally();
    }

    /** A put whose encoded form is about {@code bytes} long. */
    static GroupCommit.Pending pending(String key, int bytes) {
        Entry.WriteCall call = new Entry.WriteCall(0, "t", null, null,
                List.of(new Op.Put("ns", key, JsonValue.of("\"" + "x".repeat(Math.max(0, bytes - 40)) + "\""), Expiry.FOREVER, null, false)));
        return new GroupCommit.Pending(call, EntryCodec.encode(call), new CompletableFuture<>());
    }
}
