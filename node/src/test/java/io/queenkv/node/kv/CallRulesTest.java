package io.queenkv.node.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.queenkv.node.testing.property.Gen;
import io.queenkv.node.testing.property.PropertyRunner;

class CallRulesTest {
    /** Text of plain, non-Latin-1 and supplementary characters, with surrogate halves on their own now and then, anywhere. */
    private static final Gen<String> TEXT = Gen.frequency(
                    Gen.weighted(8, Gen.elementOf("a", "\"", "\\", "é", "中", "\uFFFF", "😀", "\uDBFF\uDFFF")),
                    Gen.weighted(1, Gen.elementOf("\uD800", "\uDBFF", "\uDC00", "\uDFFF")))
            .list(0, 40).map(units -> String.join("", units));

    @Test
    void textIsValidUnicodeExactlyWhenItSurvivesUtf8() {
        PropertyRunner.assertHolds(500, TEXT.list(1, 20), texts -> {
            for (String text : texts) {
                boolean survives = new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(text);
                assertThat(CallRules.isValidUnicode(text)).as("%s", text.codePoints().mapToObj(Integer::toHexString).toList()).isEqualTo(survives);
            }
        });
    }

    @Test
    void aSurrogateHalfIsFoundWhereverItStands() {
        String plain = "x".repeat(1000);
        for (String half : List.of("\uD800", "\uDC00"))
            for (int at : new int[] {0, 1, 500, 999, 1000})
                assertThat(CallRules.isValidUnicode(plain.substring(0, at) + half + plain.substring(at))).as(half + " at " + at).isFalse();
        assertThat(CallRules.isValidUnicode(plain + "😀" + plain)).isTrue();
        assertThat(CallRules.isValidUnicode("\uDC00\uD800")).isFalse(); // the halves the wrong way round
    }
}
