package io.queenkv.node.kv;

import java.util.Comparator;

/**
 * Keys sort in UTF-8 byte order, which is Unicode code point order. Java's {@code String.compareTo}
 * compares UTF-16 units and would misplace characters above U+FFFF.
 *
 * <p>Every lookup of a key compares it this way many times, so the common case is a plain loop over
 * UTF-16 units: below U+D800 (Latin, Greek, Cyrillic, CJK, Hangul…) a unit is its code point. Only a
 * first difference at a surrogate or above U+DFFF compares code points, from the start.
 */
public final class KeyOrder {
    public static final Comparator<String> BYTES = KeyOrder::compare;

    private static final char FIRST_SURROGATE = '\uD800';

    private KeyOrder() {}

    static int compare(String a, String b) {
        int shorter = Math.min(a.length(), b.length());
        for (int k = 0; k < shorter; k++) {
            char ca = a.charAt(k), cb = b.charAt(k);
            if (ca == cb) continue;
            // Units before k are equal, and a unit below U+D800 is neither half of a pair: the code
            // points at k are the units themselves.
            if (ca < FIRST_SURROGATE && cb < FIRST_SURROGATE) return ca - cb;
            return byCodePoints(a, b);
        }
        return a.length() - b.length();
    }

    private static int byCodePoints(String a, String b) {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i), cb = b.codePointAt(j);
            if (ca != cb) return Integer.compare(ca, cb);
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
