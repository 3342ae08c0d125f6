package io.queenkv.node.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.queenkv.node.testing.property.Gen;
import io.queenkv.node.testing.property.PropertyRunner;

class KeyOrderTest {
    /** Two keys to compare. */
    record Pair(String a, String b) {}

    /** Units from every range the order treats apart, so that generated keys often share a prefix. */
    private static final Gen<String> UNITS = Gen.frequency(
            Gen.weighted(6, Gen.elementOf("a", "b", "z", "0", "~", "é", "λ", "中", "한")),
            Gen.weighted(3, Gen.elementOf("\uE000", "\uFB01", "\uFFFD", "\uFFFF")),
            Gen.weighted(3, Gen.elementOf("😀", "𝄞", "\uD83D\uDE01", "\uDBFF\uDFFF")),
            Gen.weighted(1, Gen.elementOf("\uD800", "\uDBFF", "\uDC00", "\uDFFF"))); // unpaired halves
    private static final Gen<String> KEYS = UNITS.list(0, 6).map(units -> String.join("", units));

    @Test
    void wellFormedKeysSortAsTheirUtf8Bytes() {
        PropertyRunner.assertHolds(300, pairs(KEYS.map(KeyOrderTest::wellFormed)), steps -> {
            for (Pair p : steps)
                assertThat(Integer.signum(KeyOrder.compare(p.a(), p.b())))
                        .as(p.toString())
                        .isEqualTo(Integer.signum(Arrays.compareUnsigned(utf8(p.a()), utf8(p.b()))));
        });
    }

    @Test
    void everyKeySortsAsItsCodePointsUnpairedSurrogatesIncluded() {
        PropertyRunner.assertHolds(300, pairs(KEYS), steps -> {
            for (Pair p : steps)
                assertThat(Integer.signum(KeyOrder.compare(p.a(), p.b())))
                        .as(p.toString())
                        .isEqualTo(Integer.signum(Arrays.compare(p.a().codePoints().toArray(), p.b().codePoints().toArray())));
        });
    }

    @Test
    void aCharacterAboveTheSurrogatesSortsBeforeOneBeyondU_FFFF() {
        assertThat(KeyOrder.compare("k\uFFFD", "k😀")).isNegative(); // String.compareTo says positive
        assertThat(KeyOrder.compare("k😀", "k\uFFFD")).isPositive();
        assertThat(KeyOrder.compare("ab", "abc")).isNegative();
        assertThat(KeyOrder.compare("中", "中")).isZero();
    }

    private static Gen<List<Pair>> pairs(Gen<String> keys) {
        // Half the pairs share a generated prefix, so the first difference falls anywhere.
        Gen<Pair> pair = r -> {
            String prefix = r.nextBoolean() ? keys.next(r) : "";
            return new Pair(prefix + keys.next(r), prefix + keys.next(r));
        };
        return pair.list(1, 50);
    }

    private static String wellFormed(String s) {
        return new String(utf8(s), StandardCharsets.UTF_8).replace("\uFFFD", "");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
