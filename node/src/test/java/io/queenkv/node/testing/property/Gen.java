package io.queenkv.node.testing.property;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * A generator of values of {@code T}: a function of a random source. The same seeded source gives
 * the same values, which is all replaying a seed relies on.
 *
 * <p>Records of several generated fields need no combinator; write a lambda that draws each field
 * in order: {@code Gen<Point> points = r -> new Point(xs.next(r), ys.next(r));}
 */
@FunctionalInterface
public interface Gen<T> {

    /** Draws one value. Must use only {@code random} as its source of chance. */
    T next(RandomGenerator random);

    /** Values of this generator passed through {@code f}. */
    default <R> Gen<R> map(Function<? super T, ? extends R> f) {
        return random -> f.apply(next(random));
    }

    /** {@code null} with the given probability, else a value of this generator. */
    default Gen<T> orNull(double probability) {
        if (probability < 0 || probability > 1) throw new IllegalArgumentException("probability " + probability);
        return random -> random.nextDouble() < probability ? null : next(random);
    }

    /** Lists of {@code minSize} to {@code maxSize} (inclusive, sizes equally likely) values of this generator. */
    default Gen<List<T>> list(int minSize, int maxSize) {
        if (minSize < 0 || maxSize < minSize) throw new IllegalArgumentException("sizes " + minSize + ".." + maxSize);
        return random -> {
            int size = random.nextInt(minSize, maxSize + 1);
            List<T> values = new ArrayList<>(size);
            for (int i = 0; i < size; i++) values.add(next(random));
            // Unmodifiable but null-tolerant: an element may come from orNull().
            return Collections.unmodifiableList(values);
        };
    }

    /** Always {@code value}. */
    static <T> Gen<T> constant(T value) {
        return random -> value;
    }

    /** One of {@code values}, each equally likely; list a value twice to make it twice as likely. */
    @SafeVarargs
    static <T> Gen<T> elementOf(T... values) {
        return elementOf(List.of(values));
    }

    /** One of {@code values}, each equally likely. */
    static <T> Gen<T> elementOf(List<? extends T> values) {
        if (values.isEmpty()) throw new IllegalArgumentException("no values to choose from");
        List<? extends T> copy = List.copyOf(values);
        return random -> copy.get(random.nextInt(copy.size()));
    }

    /** Integers from {@code min} to {@code max}, both included. */
    static Gen<Integer> ints(int min, int max) {
        if (max < min) throw new IllegalArgumentException("range " + min + ".." + max);
        return random -> (int) random.nextLong(min, (long) max + 1);
    }

    /** Longs from {@code min} to {@code max}, both included. */
    static Gen<Long> longs(long min, long max) {
        if (max < min) throw new IllegalArgumentException("range " + min + ".." + max);
        if (max < Long.MAX_VALUE) return random -> random.nextLong(min, max + 1);
        if (min > Long.MIN_VALUE) return random -> random.nextLong(min - 1, max) + 1;
        return RandomGenerator::nextLong;
    }

    /** {@code true} or {@code false}, equally likely. */
    static Gen<Boolean> booleans() {
        return RandomGenerator::nextBoolean;
    }

    /** A value of one of {@code gens}, each generator equally likely. */
    @SafeVarargs
    static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
        List<Gen<? extends T>> choices = List.of(gens);
        if (choices.isEmpty()) throw new IllegalArgumentException("no generators to choose from");
        return random -> choices.get(random.nextInt(choices.size())).next(random);
    }

    /** A value of one of the weighted generators, each chosen in proportion to its weight. */
    @SafeVarargs
    static <T> Gen<T> frequency(Weighted<? extends T>... choices) {
        List<Weighted<? extends T>> list = List.of(choices);
        int total = list.stream().mapToInt(Weighted::weight).sum();
        if (total <= 0) throw new IllegalArgumentException("weights add up to " + total);
        return random -> {
            int pick = random.nextInt(total);
            for (Weighted<? extends T> choice : list) {
                if (pick < choice.weight()) return choice.gen().next(random);
                pick -= choice.weight();
            }
            throw new AssertionError("unreachable: pick below the total weight");
        };
    }

    /** {@code gen} with weight {@code weight}, for {@link #frequency}. */
    static <T> Weighted<T> weighted(int weight, Gen<T> gen) {
        return new Weighted<>(weight, gen);
    }

    /** A generator and how often {@link #frequency} picks it relative to the others. */
    record Weighted<T>(int weight, Gen<T> gen) {
        public Weighted {
            if (weight < 0) throw new IllegalArgumentException("weight " + weight);
            Objects.requireNonNull(gen, "gen");
        }
    }
}
