package io.queenkv.node.testing.property;

import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Runs a {@link Property} on one generated step sequence per seed of a {@link Plan}. At the first
 * failing seed it stops, {@linkplain Minimiser minimises} that sequence and answers a
 * {@link Verdict.Failed} that names the seed.
 *
 * <p>A test calls {@link #assertHolds} from one plain {@code @Test}: one test, and on failure one
 * assertion error whose message is the report (seed, replay flag, minimised steps), with the
 * minimised failure as its cause. (A parameterized test per seed would list hundreds of passing
 * entries, and report each failing seed separately.)
 */
public final class PropertyRunner {
    private PropertyRunner() {}

    /** Runs {@code property} over the plan's seeds; does not throw for a failing property. */
    public static <S> Verdict<S> run(Plan plan, Gen<List<S>> steps, Property<S> property) {
        List<Long> seeds = plan.seeds();
        for (int i = 0; i < seeds.size(); i++) {
            long seed = seeds.get(i);
            List<S> generated = steps.next(new SplittableRandom(seed));
            Optional<Throwable> failure = failureOf(property, generated);
            if (failure.isPresent()) {
                Minimiser.Failing<S> minimal =
                        Minimiser.minimise(new Minimiser.Failing<>(generated, failure.get()), candidate -> failureOf(property, candidate));
                return new Verdict.Failed<>(seed, i + 1, seeds.size(), generated.size(), minimal.steps(), minimal.failure());
            }
        }
        return new Verdict.Passed<>(seeds.size());
    }

    /**
     * Runs {@code property} over the seeds the system properties ask for ({@link Plan#fromSystemProperties}),
     * {@code defaultTries} fresh seeds when they ask nothing; throws an {@link AssertionError} with the report
     * if a seed fails.
     */
    public static <S> void assertHolds(int defaultTries, Gen<List<S>> steps, Property<S> property) {
        if (run(Plan.fromSystemProperties(defaultTries), steps, property) instanceof Verdict.Failed<S> failed)
            throw new AssertionError(failed.report(), failed.failure());
    }

    /** The failure of {@code property} on {@code steps}, or empty when it holds. */
    static <S> Optional<Throwable> failureOf(Property<S> property, List<S> steps) {
        try {
            property.check(steps);
            return Optional.empty();
        } catch (Throwable failure) { // a StackOverflowError in the code under test is a failure with a seed too
            return Optional.of(failure);
        }
    }
}
