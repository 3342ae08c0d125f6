package io.queenkv.node.kv;

import java.util.Comparator;

/**
 * Keys sort in UTF-8 byte order, which is Unicode code point order. Java's {@code String.compareTo}
 * compares UTF-16 units and would misplace characters above U+FFFF.
 */
public final class KeyOrder {
    public static final Comparator<String> BYTES = KeyOrder::compare;

    private KeyOrder() {}

    static int compare(String a, String b) {
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
