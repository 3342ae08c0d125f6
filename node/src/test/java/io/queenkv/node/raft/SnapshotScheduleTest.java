package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The two rules of {@link SnapshotSchedule}: enough entries, and a log of a quarter of the last
 * snapshot's bytes; and the members' turns.
 */
class SnapshotScheduleTest {
    @Test
    void theFirstSnapshotIsDueAfterSnapshotEveryEntries() {
        SnapshotSchedule s = new SnapshotSchedule(10, SnapshotSchedule.Turn.ALONE);
        for (int i = 1; i <= 8; i++) s.applied(100);
        assertThat(s.due(8)).isFalse();
        assertThat(s.due(9)).as("from index -1, nine entries are ten apart").isTrue();
    }

    @Test
    void aLaterOneWaitsForBothEnoughEntriesAndAQuarterOfTheLastSnapshotsBytes() {
        SnapshotSchedule s = new SnapshotSchedule(10, SnapshotSchedule.Turn.ALONE);
        s.applied(1_000);
        s.written(100, s.appliedLogBytes(), 40_000);

        s.applied(9_999);
        assertThat(s.due(200)).as("100 entries, but under 10,000 log bytes").isFalse();
        s.applied(1);
        assertThat(s.due(109)).as("10,000 log bytes, but 9 entries").isFalse();
        assertThat(s.due(110)).isTrue();
    }

    @Test
    void theLogCountsFromWhereTheSnapshotWasFrozenNotFromWhenItWasWritten() {
        SnapshotSchedule s = new SnapshotSchedule(1, SnapshotSchedule.Turn.ALONE);
        s.applied(500);
        long frozenAt = s.appliedLogBytes();
        s.applied(500); // applied while the snapshot was being written
        s.written(10, frozenAt, 2_000);
        assertThat(s.due(11)).as("500 bytes since the freeze, a quarter of 2,000").isTrue();
    }

    @Test
    void aLoadedSnapshotStartsTheCountAfresh() {
        SnapshotSchedule s = new SnapshotSchedule(1, SnapshotSchedule.Turn.ALONE);
        s.applied(1_000_000);
        s.loaded(50, 8_000);
        s.applied(1_999);
        assertThat(s.due(60)).isFalse();
        s.applied(1);
        assertThat(s.due(60)).isTrue();
    }

    @Test
    void anOlderSnapshotWrittenLateIsIgnored() {
        SnapshotSchedule s = new SnapshotSchedule(1, SnapshotSchedule.Turn.ALONE);
        s.written(20, 0, 100);
        s.written(10, 0, 1_000_000);
        s.applied(25);
        assertThat(s.due(21)).isTrue();
    }

    @Test
    void snapshotEveryIsAtLeastOne() {
        assertThatThrownBy(() -> new SnapshotSchedule(0, SnapshotSchedule.Turn.ALONE)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Three members applying the same entries never write at the same index: each in its third of every cycle. */
    @Test
    void theMembersOfAGroupTakeTurns() {
        List<String> members = List.of("n2", "n3", "n1");
        long every = 300;
        List<List<Long>> written = new ArrayList<>();
        for (String id : List.of("n1", "n2", "n3")) {
            SnapshotSchedule s = new SnapshotSchedule(every, SnapshotSchedule.Turn.of(id, members));
            List<Long> at = new ArrayList<>();
            for (long index = 0; index < 3_000; index++) {
                s.applied(100);
                if (s.due(index)) {
                    s.written(index, s.appliedLogBytes(), 1_000);
                    at.add(index);
                }
            }
            written.add(at);
        }
        assertThat(written.get(0)).as("n1").startsWith(300L, 600L, 900L);
        assertThat(written.get(1)).as("n2").startsWith(400L, 700L, 1_000L);
        assertThat(written.get(2)).as("n3: due at 299, the last third of the first cycle").startsWith(299L, 599L, 899L);
        for (int m = 0; m < 3; m++) {
            int member = m;
            assertThat(written.get(m)).hasSizeGreaterThan(8)
                    .allSatisfy(index -> assertThat(Math.floorMod(index, every) * 3 / every).as("part of the cycle").isEqualTo((long) member));
        }
    }

    /** Applies come in batches: a member asked only outside its part goes once snapshotEvery more entries were applied. */
    @Test
    void aMemberWhoseTurnIsSteppedOverGoesAfterSnapshotEveryMoreEntries() {
        SnapshotSchedule s = new SnapshotSchedule(300, new SnapshotSchedule.Turn(1, 3));
        s.applied(1_000);
        assertThat(s.due(299)).as("due by the rules, but in the third part").isFalse();
        assertThat(s.due(520)).as("still the third part, 221 entries on").isFalse();
        assertThat(s.due(599)).as("300 entries after it was first due").isTrue();

        s.written(599, s.appliedLogBytes(), 0);
        s.applied(1);
        assertThat(s.due(899)).isFalse();
        assertThat(s.due(1_000)).as("its part: 1,000 is 100 into a cycle").isTrue();
    }

    @Test
    void aMemberNotInTheListGoesAloneAndTurnsFollowTheOrderOfIds() {
        assertThat(SnapshotSchedule.Turn.of("n9", List.of("n1", "n2"))).isEqualTo(SnapshotSchedule.Turn.ALONE);
        assertThat(SnapshotSchedule.Turn.of("b", List.of("c", "a", "b", "a"))).isEqualTo(new SnapshotSchedule.Turn(1, 3));
        assertThatThrownBy(() -> new SnapshotSchedule.Turn(3, 3)).isInstanceOf(IllegalArgumentException.class);
    }
}
