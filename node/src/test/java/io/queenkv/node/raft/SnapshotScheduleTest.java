package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The two rules of {@link SnapshotSchedule}: enough entries, and a log of a quarter of the last snapshot's bytes. */
class SnapshotScheduleTest {
    @Test
    void theFirstSnapshotIsDueAfterSnapshotEveryEntries() {
        SnapshotSchedule s = new SnapshotSchedule(10);
        for (int i = 1; i <= 8; i++) s.applied(100);
        assertThat(s.due(8)).isFalse();
        assertThat(s.due(9)).as("from index -1, nine entries are ten apart").isTrue();
    }

    @Test
    void aLaterOneWaitsForBothEnoughEntriesAndAQuarterOfTheLastSnapshotsBytes() {
        SnapshotSchedule s = new SnapshotSchedule(10);
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
        SnapshotSchedule s = new SnapshotSchedule(1);
        s.applied(500);
        long frozenAt = s.appliedLogBytes();
        s.applied(500); // applied while the snapshot was being written
        s.written(10, frozenAt, 2_000);
        assertThat(s.due(11)).as("500 bytes since the freeze, a quarter of 2,000").isTrue();
    }

    @Test
    void aLoadedSnapshotStartsTheCountAfresh() {
        SnapshotSchedule s = new SnapshotSchedule(1);
        s.applied(1_000_000);
        s.loaded(50, 8_000);
        s.applied(1_999);
        assertThat(s.due(60)).isFalse();
        s.applied(1);
        assertThat(s.due(60)).isTrue();
    }

    @Test
    void anOlderSnapshotWrittenLateIsIgnored() {
        SnapshotSchedule s = new SnapshotSchedule(1);
        s.written(20, 0, 100);
        s.written(10, 0, 1_000_000);
        s.applied(25);
        assertThat(s.due(21)).isTrue();
    }

    @Test
    void snapshotEveryIsAtLeastOne() {
        assertThatThrownBy(() -> new SnapshotSchedule(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
