package io.queenkv.node.testing.property;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

class MinimiserTest {

    /** Runs that fail exactly when {@code fails} holds, counting how often the minimiser asked. */
    static final class Planted implements Function<List<Integer>, Optional<Throwable>> {
        final Predicate<List<Integer>> fails;
        int runs;

        Planted(Predicate<List<Integer>> fails) {
            this.fails = fails;
        }

        @Override
        public Optional<Throwable> apply(List<Integer> steps) {
            runs++;
            return fails.test(steps) ? Optional.of(new AssertionError("fails on " + steps)) : Optional.empty();
        }
    }

    static Minimiser.Failing<Integer> minimise(List<Integer> steps, Planted run) {
        return Minimiser.minimise(new Minimiser.Failing<>(steps, new AssertionError("first")), run);
    }

    @Test
    void aBugThatNeedsBothThreeAndSevenIsMinimisedToThoseTwo() {
        List<Integer> steps = List.of(1, 7, 2, 7, 5, 3, 9, 3, 0, 8, 7, 4, 6, 1, 2);
        Minimiser.Failing<Integer> minimal = minimise(steps, new Planted(s -> s.contains(3) && s.contains(7)));

        assertThat(minimal.steps()).containsExactlyInAnyOrder(3, 7);
        assertThat(minimal.failure()).hasMessage("fails on " + minimal.steps());
    }

    @Test
    void anOrderedPairKeepsItsOrderAndStepsBetweenItGo() {
        // Fails when a 3 comes before a 7 somewhere: only [3, 7] is minimal.
        Predicate<List<Integer>> threeBeforeSeven = s -> s.contains(3) && s.lastIndexOf(7) > s.indexOf(3);
        List<Integer> steps = List.of(7, 7, 1, 3, 2, 2, 5, 7, 3, 1);

        assertThat(minimise(steps, new Planted(threeBeforeSeven)).steps()).containsExactly(3, 7);
    }

    @Test
    void theResultIsOneMinimalWhenSeveralStepsAreNeeded() {
        // Fails when the sum reaches 10: every step of the result is needed.
        Predicate<List<Integer>> sumAtLeastTen = s -> s.stream().mapToInt(Integer::intValue).sum() >= 10;
        List<Integer> steps = List.of(1, 2, 1, 3, 1, 1, 2, 4, 1, 2);
        Planted run = new Planted(sumAtLeastTen);
        List<Integer> minimal = minimise(steps, run).steps();

        assertThat(sumAtLeastTen).accepts(minimal);
        for (int i = 0; i < minimal.size(); i++) {
            List<Integer> shorter = new ArrayList<>(minimal);
            shorter.remove(i);
            assertThat(sumAtLeastTen).as("without step %d of %s", i, minimal).rejects(shorter);
        }
        assertThat(run.runs).isLessThan(steps.size() * steps.size());
    }

    @Test
    void aPropertyThatFailsOnAnythingIsMinimisedToNoSteps() {
        assertThat(minimise(List.of(4, 5, 6), new Planted(s -> true)).steps()).isEmpty();
    }

    @Test
    void aSingleNeededStepIsKeptAndANotFailingRunChangesNothing() {
        assertThat(minimise(List.of(8), new Planted(s -> s.contains(8))).steps()).containsExactly(8);
        assertThat(minimise(List.of(), new Planted(s -> true)).steps()).isEmpty();
    }
}
