package io.queenkv.node.testing.property;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

/**
 * The seeds a run tries, in order; each seed generates one step sequence.
 *
 * <p>A normal run draws a fresh run seed and derives its try seeds from it, so every run explores
 * new sequences and a failure names the one try seed that replays it. Two system properties change
 * that: {@value #SEED_PROPERTY} replays a single try seed, {@value #TRIES_PROPERTY} sets how many
 * seeds a run tries (for a longer run than the test's default).
 */
public record Plan(List<Long> seeds) {
    public static final String SEED_PROPERTY = "queenkv.property.seed";
    public static final String TRIES_PROPERTY = "queenkv.property.tries";

    public Plan {
        seeds = List.copyOf(seeds);
        if (seeds.isEmpty()) throw new IllegalArgumentException("a plan tries at least one seed");
    }

    /** Exactly one try, with the seed a failure report named. */
    public static Plan replay(long seed) {
        return new Plan(List.of(seed));
    }

    /** {@code tries} seeds derived from {@code runSeed}: the same run seed gives the same seeds. */
    public static Plan derived(long runSeed, int tries) {
        if (tries < 1) throw new IllegalArgumentException("tries " + tries);
        return new Plan(new SplittableRandom(runSeed).longs(tries).boxed().toList());
    }

    /** {@code tries} seeds from a fresh run seed. */
    public static Plan fresh(int tries) {
        return derived(new SplittableRandom().nextLong(), tries);
    }

    /** The plan the system properties ask for, else {@code defaultTries} fresh seeds. */
    public static Plan fromSystemProperties(int defaultTries) {
        return from(System::getProperty, defaultTries);
    }

    /** As {@link #fromSystemProperties}, reading the properties through {@code properties} (null: not set). */
    public static Plan from(UnaryOperator<String> properties, int defaultTries) {
        String seed = properties.apply(SEED_PROPERTY);
        if (seed != null && !seed.isBlank()) return replay(parse(SEED_PROPERTY, seed));
        String tries = properties.apply(TRIES_PROPERTY);
        if (tries != null && !tries.isBlank()) return fresh(Math.toIntExact(parse(TRIES_PROPERTY, tries)));
        return fresh(defaultTries);
    }

    private static long parse(String property, String value) {
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + property + " must be a whole number, not '" + value + "'", e);
        }
    }
}
