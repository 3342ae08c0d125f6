package io.queenkv.node.testing.property;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class PropertyRunnerTest {
    static final Gen<List<Integer>> DIGITS = Gen.ints(0, 9).list(0, 30);

    /** A planted bug: the property fails iff the steps contain both 3 and 7. */
    static final Property<Integer> NO_THREE_WITH_SEVEN =
            steps -> assertThat(steps.contains(3) && steps.contains(7)).as("3 and 7 together in %s", steps).isFalse();

    static <S> Verdict.Failed<S> failed(Verdict<S> verdict) {
        if (verdict instanceof Verdict.Failed<S> failed) return failed;
        throw new AssertionError("expected the property to fail, but " + verdict);
    }

    @Test
    void aHoldingPropertyRunsOnceForEverySeedOfThePlan() {
        List<List<Integer>> seen = new ArrayList<>();
        Verdict<Integer> verdict = PropertyRunner.run(Plan.derived(1, 250), DIGITS, steps -> seen.add(steps));

        assertThat(verdict).isEqualTo(new Verdict.Passed<Integer>(250));
        assertThat(seen).hasSize(250);
    }

    @Test
    void aPlantedBugIsFoundMinimisedAndReportedWithItsSeed() {
        Verdict<Integer> verdict = PropertyRunner.run(Plan.derived(2, 100), DIGITS, NO_THREE_WITH_SEVEN);

        Verdict.Failed<Integer> failed = failed(verdict);
        assertThat(failed.minimised()).containsExactlyInAnyOrder(3, 7);
        assertThat(failed.generatedSize()).isGreaterThan(2);
        assertThat(failed.seed()).isEqualTo(Plan.derived(2, 100).seeds().get(failed.tryNumber() - 1));
        assertThat(failed.report()).startsWith("property failed: seed=" + failed.seed() + " (try " + failed.tryNumber() + " of 100;")
                .contains("-Dqueenkv.property.seed=" + failed.seed())
                .contains("\n  1. " + failed.minimised().get(0) + "\n  2. " + failed.minimised().get(1) + "\n")
                .contains("3 and 7 together in " + failed.minimised());
    }

    @Test
    void replayingTheReportedSeedFindsTheSameSequence() {
        Verdict.Failed<Integer> first = failed(PropertyRunner.run(Plan.derived(3, 100), DIGITS, NO_THREE_WITH_SEVEN));
        List<List<Integer>> replayed = new ArrayList<>();
        Verdict<Integer> again = PropertyRunner.run(Plan.replay(first.seed()), DIGITS, steps -> {
            replayed.add(steps);
            NO_THREE_WITH_SEVEN.check(steps);
        });

        assertThat(failed(again).seed()).isEqualTo(first.seed());
        assertThat(failed(again).tryNumber()).isEqualTo(1);
        assertThat(failed(again).minimised()).isEqualTo(first.minimised());
        assertThat(replayed.get(0)).hasSize(first.generatedSize());
    }

    @Test
    void assertHoldsThrowsTheReportWithTheMinimisedFailureAsCause() {
        // Fails on every sequence, so whatever -Dqueenkv.property.* a run was given, it fails here.
        assertThatThrownBy(() -> PropertyRunner.assertHolds(20, DIGITS, steps -> {
            throw new AssertionError("always, on " + steps);
        }))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("property failed: seed=")
                .hasMessageContaining("minimised to 0:")
                .cause().hasMessage("always, on []");
        PropertyRunner.assertHolds(50, DIGITS, steps -> assertThat(steps).hasSizeLessThanOrEqualTo(30));
    }

    @Test
    void anExceptionIsAFailureLikeAnAssertion() {
        Verdict<Integer> verdict = PropertyRunner.run(Plan.derived(4, 100), DIGITS, steps -> {
            if (steps.contains(5)) throw new IllegalStateException("five");
        });

        assertThat(failed(verdict).minimised()).containsExactly(5);
        assertThat(failed(verdict).failure()).isInstanceOf(IllegalStateException.class).hasMessage("five");
    }

    @Test
    void thePlanComesFromTheSeedAndTriesProperties() {
        assertThat(Plan.from(Map.<String, String>of()::get, 321).seeds()).hasSize(321);
        assertThat(Plan.from(Map.of("queenkv.property.tries", "5000")::get, 321).seeds()).hasSize(5000).doesNotHaveDuplicates();
        assertThat(Plan.from(Map.of("queenkv.property.seed", "-42", "queenkv.property.tries", "5000")::get, 321))
                .isEqualTo(Plan.replay(-42));
        assertThat(Plan.derived(9, 10)).isEqualTo(Plan.derived(9, 10)).isNotEqualTo(Plan.derived(10, 10));
        assertThat(Plan.fresh(10)).isNotEqualTo(Plan.fresh(10));
        assertThatThrownBy(() -> Plan.from(Map.of("queenkv.property.seed", "0x1f")::get, 1))
                .hasMessageContaining("-Dqueenkv.property.seed must be a whole number");
    }
}
