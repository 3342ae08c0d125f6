package io.queenkv.node.kv;

import java.math.BigDecimal;

/** Exact decimal arithmetic for {@code incr}, rendered as the shortest plain JSON number. */
final class Numbers {
    private Numbers() {}

    /**
     * An upper bound on the digits of the exact {@code a + b}: from the highest digit of either to the
     * lowest non-zero digit of either. Cheap for operands whose exponents are far apart.
     */
    static long sumDigits(BigDecimal a, BigDecimal b) {
        if (a.signum() == 0 || b.signum() == 0) return (a.signum() == 0 ? b : a).stripTrailingZeros().precision();
        BigDecimal x = a.stripTrailingZeros(), y = b.stripTrailingZeros();
        long high = Math.max(x.precision() - (long) x.scale(), y.precision() - (long) y.scale());
        long low = Math.min(-(long) x.scale(), -(long) y.scale());
        return high - low + 1;
    }

    static String toJson(BigDecimal n) {
        BigDecimal stripped = n.signum() == 0 ? BigDecimal.ZERO : n.stripTrailingZeros();
        // Plain notation unless the exponent is extreme, where plain text would balloon.
        if (Math.abs(stripped.scale()) > 64) return stripped.toString();
        return stripped.toPlainString();
    }
}
