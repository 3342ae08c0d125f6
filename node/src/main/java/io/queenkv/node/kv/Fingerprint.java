package io.queenkv.node.kv;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A call's fingerprint as an idempotency record holds it. The HTTP layer sends a SHA-256 digest in
 * lowercase hex (64 characters); a record keeps its 32 bytes instead of the string, a third of the
 * memory. Any other string (none is proposed today, but the log may hold what earlier versions took)
 * is kept exactly as its UTF-8 bytes, preceded by 0xFF when they are 32 long: 32-byte arrays are
 * digests only, and UTF-8 never holds 0xFF. So two fingerprints are equal exactly when their
 * compact forms are, and {@link #expand} gives back the string, which snapshots still carry.
 */
final class Fingerprint {
    private static final int DIGEST_BYTES = 32;
    private static final byte NOT_A_DIGEST = (byte) 0xFF;
    private static final HexFormat HEX = HexFormat.of();

    private Fingerprint() {}

    static byte[] compact(String fingerprint) {
        if (isDigestHex(fingerprint)) return HEX.parseHex(fingerprint);
        byte[] utf8 = fingerprint.getBytes(StandardCharsets.UTF_8);
        if (utf8.length != DIGEST_BYTES) return utf8;
        byte[] marked = new byte[DIGEST_BYTES + 1];
        marked[0] = NOT_A_DIGEST;
        System.arraycopy(utf8, 0, marked, 1, DIGEST_BYTES);
        return marked;
    }

    static String expand(byte[] compact) {
        if (compact.length == DIGEST_BYTES) return HEX.formatHex(compact);
        int from = compact.length > 0 && compact[0] == NOT_A_DIGEST ? 1 : 0;
        return new String(compact, from, compact.length - from, StandardCharsets.UTF_8);
    }

    static boolean matches(byte[] compact, String fingerprint) {
        return Arrays.equals(compact, compact(fingerprint));
    }

    private static boolean isDigestHex(String s) {
        if (s.length() != 2 * DIGEST_BYTES) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) return false;
        }
        return true;
    }
}
