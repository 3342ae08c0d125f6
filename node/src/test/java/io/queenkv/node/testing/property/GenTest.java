package io.queenkv.node.testing.property;

import static io.queenkv.node.testing.property.Gen.weighted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class GenTest {
    record Pair(int left, String right) {}

    static final Gen<Pair> PAIRS = r -> new Pair(Gen.ints(-50, 50).next(r), Gen.elementOf("a", "b", "c").orNull(0.3).next(r));

    static <T> List<T> draw(Gen<T> gen, long seed, int count) {
        SplittableRandom random = new SplittableRandom(seed);
        List<T> values = new ArrayList<>();
        for (int i = 0; i < count; i++) values.add(gen.next(random));
        return values;
    }

    @Test
    void theSameSeedGivesTheSameValuesAndAnotherSeedOthers() {
        Gen<List<Pair>> lists = PAIRS.list(0, 20);
        assertThat(draw(lists, 42, 50)).isEqualTo(draw(lists, 42, 50));
        assertThat(draw(lists, 42, 50)).isNotEqualTo(draw(lists, 43, 50));
    }

    @Test
    void intsAndLongsStayInTheirRangeAndReachBothEnds() {
        assertThat(new HashSet<>(draw(Gen.ints(-2, 2), 1, 500))).containsExactlyInAnyOrder(-2, -1, 0, 1, 2);
        assertThat(new HashSet<>(draw(Gen.longs(7, 9), 1, 500))).containsExactlyInAnyOrder(7L, 8L, 9L);
        assertThat(draw(Gen.ints(Integer.MAX_VALUE - 1, Integer.MAX_VALUE), 1, 200)).contains(Integer.MAX_VALUE)
                .allMatch(i -> i >= Integer.MAX_VALUE - 1);
        assertThat(draw(Gen.longs(Long.MAX_VALUE - 1, Long.MAX_VALUE), 1, 200)).contains(Long.MAX_VALUE)
                .allMatch(l -> l >= Long.MAX_VALUE - 1);
        assertThat(draw(Gen.longs(Long.MIN_VALUE, Long.MAX_VALUE), 1, 10)).doesNotHaveDuplicates();
        assertThatThrownBy(() -> Gen.ints(3, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void listsHaveEverySizeInTheirBoundsAndNoOther() {
        List<List<Integer>> lists = draw(Gen.ints(0, 9).list(2, 5), 7, 400);
        Set<Integer> sizes = new HashSet<>();
        for (List<Integer> list : lists) sizes.add(list.size());
        assertThat(sizes).containsExactlyInAnyOrder(2, 3, 4, 5);
        assertThat(draw(Gen.ints(0, 9).list(0, 0), 7, 10)).allMatch(List::isEmpty);
    }

    @Test
    void elementOfAndOneOfReachEveryChoice() {
        assertThat(new HashSet<>(draw(Gen.elementOf(List.of("x", "y", "z")), 3, 200))).containsExactlyInAnyOrder("x", "y", "z");
        Gen<Object> either = Gen.oneOf(Gen.constant("text"), Gen.ints(1, 1), Gen.booleans());
        assertThat(new HashSet<>(draw(either, 3, 200))).containsExactlyInAnyOrder("text", 1, true, false);
        assertThatThrownBy(() -> Gen.elementOf(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void frequencyFollowsTheWeightsAndNeverPicksAZeroWeight() {
        Gen<String> gen = Gen.frequency(weighted(9, Gen.constant("often")), weighted(1, Gen.constant("rarely")),
                weighted(0, Gen.constant("never")));
        Map<String, Integer> counts = new HashMap<>();
        for (String s : draw(gen, 11, 10_000)) counts.merge(s, 1, Integer::sum);
        assertThat(counts).doesNotContainKey("never");
        // 9:1 with 10,000 draws: the rare one lands near 1,000 (a standard deviation is 30).
        assertThat(counts.get("rarely")).isBetween(850, 1150);
        assertThatThrownBy(() -> Gen.frequency(weighted(0, Gen.constant(1)))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void orNullGivesNullAboutAsOftenAsAskedAndMapTransformsTheRest() {
        List<String> drawn = draw(Gen.constant("v").map(v -> v + "!").orNull(0.25), 5, 4000);
        // 1,000 nulls expected; a standard deviation is about 27.
        assertThat(drawn.stream().filter(v -> v == null).count()).isBetween(850L, 1150L);
        assertThat(drawn).filteredOn(v -> v != null).containsOnly("v!");
        assertThat(draw(Gen.constant("v").orNull(0), 5, 100)).containsOnly("v");
    }
}
