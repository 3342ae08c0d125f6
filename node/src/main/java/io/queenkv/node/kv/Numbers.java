package io.queenkv.node.kv;

import java.math.BigDecimal;

/** Exact decimal arithmetic for {@code incr}, rendered as the shortest plain JSON number. */
final class Numbers {
    private Numbers() {}

    static String toJson(BigDecimal n) {
        BigDecimal stripped = n.signum() == 0 ? BigDecimal.ZERO : n.stripTrailingZeros();
        // Plain notation unless the exponent is extreme, where plain text would balloon.
        if (Math.abs(stripped.scale()) > 64) return stripped.toString();
        return stripped.toPlainString();
    }
}
