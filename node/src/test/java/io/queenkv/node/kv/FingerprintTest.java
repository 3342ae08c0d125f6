package io.queenkv.node.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import io.queenkv.node.testing.property.Gen;
import io.queenkv.node.testing.property.PropertyRunner;

/**
 * An idempotency record keeps a fingerprint in its compact form; a retry must match it exactly when the
 * strings are equal, and only then, whatever the strings are, and a snapshot must get the string back.
 */
class FingerprintTest {
    static final String DIGEST = sha256Hex("a call");

    @Test
    void aDigestInLowercaseHexIsKeptAsItsThirtyTwoBytes() {
        assertThat(Fingerprint.compact(DIGEST)).hasSize(32).isEqualTo(HexFormat.of().parseHex(DIGEST));
        assertThat(Fingerprint.expand(Fingerprint.compact(DIGEST))).isEqualTo(DIGEST);
        assertThat(Fingerprint.matches(Fingerprint.compact(DIGEST), DIGEST)).isTrue();
        assertThat(Fingerprint.matches(Fingerprint.compact(DIGEST), sha256Hex("another call"))).isFalse();
    }

    @Test
    void aStringWhoseBytesLookLikeADigestIsNotTakenForOne() {
        // 32 ASCII 'a's are the bytes of the digest written "6161…61"; the two fingerprints differ.
        String letters = "a".repeat(32), hex = "61".repeat(32);
        assertThat(Fingerprint.compact(letters)).hasSize(33);
        assertThat(Fingerprint.matches(Fingerprint.compact(letters), hex)).isFalse();
        assertThat(Fingerprint.matches(Fingerprint.compact(hex), letters)).isFalse();
        // Upper-case hex is not the HTTP layer's form: kept as text, so not equal to its lower-case twin.
        assertThat(Fingerprint.matches(Fingerprint.compact(DIGEST.toUpperCase()), DIGEST)).isFalse();
        assertThat(Fingerprint.expand(Fingerprint.compact(DIGEST.toUpperCase()))).isEqualTo(DIGEST.toUpperCase());
    }

    /** Equal compact forms exactly when the strings are equal, and every string comes back. */
    @Test
    void compactFormsAreEqualExactlyWhenTheStringsAre() {
        Gen<String> digest = r -> sha256Hex(Long.toString(r.nextLong(4)));
        // Prefixes of 32 characters are 32 UTF-8 bytes, the size of a digest; "spelled" is the digest made of those bytes.
        Gen<String> hexPrefix = r -> sha256Hex(Long.toString(r.nextLong(4))).substring(0, r.nextBoolean() ? 32 : r.nextInt(30, 65));
        Gen<String> spelled = r -> HexFormat.of().formatHex(sha256Hex(Long.toString(r.nextLong(4))).substring(0, 32).getBytes(StandardCharsets.UTF_8));
        Gen<String> text = Gen.elementOf("a", "A", "\uD83D\uDE00", "\u00FF", "f", "0", "\u0000").list(0, 34).map(parts -> String.join("", parts));
        Gen<String> fingerprint = Gen.oneOf(digest, hexPrefix, spelled, text, Gen.constant(""));
        PropertyRunner.assertHolds(500, fingerprint.list(2, 2), pair -> {
            String a = pair.get(0), b = pair.get(1);
            assertThat(Fingerprint.expand(Fingerprint.compact(a))).isEqualTo(a);
            assertThat(Fingerprint.matches(Fingerprint.compact(a), b)).as("%s vs %s", a, b).isEqualTo(a.equals(b));
            assertThat(Fingerprint.compact(a).length == 32).isEqualTo(a.length() == 64 && a.equals(a.toLowerCase()) && a.matches("[0-9a-f]*"));
        });
    }

    static String sha256Hex(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

}
