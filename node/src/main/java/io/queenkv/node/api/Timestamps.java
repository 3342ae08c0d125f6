package io.queenkv.node.api;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** RFC 3339 UTC with microsecond precision, trailing zeros trimmed: {@code 2026-09-22T10:15:30.1234+00:00}. */
public final class Timestamps {
    private Timestamps() {}

    public static String format(long epochMicros) {
        long seconds = Math.floorDiv(epochMicros, 1_000_000L);
        int micros = (int) Math.floorMod(epochMicros, 1_000_000L);
        LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC);
        StringBuilder sb = new StringBuilder(32);
        pad(sb, t.getYear(), 4).append('-');
        pad(sb, t.getMonthValue(), 2).append('-');
        pad(sb, t.getDayOfMonth(), 2).append('T');
        pad(sb, t.getHour(), 2).append(':');
        pad(sb, t.getMinute(), 2).append(':');
        pad(sb, t.getSecond(), 2);
        if (micros != 0) {
            String fraction = String.format("%06d", micros);
            int end = fraction.length();
            while (fraction.charAt(end - 1) == '0') end--;
            sb.append('.').append(fraction, 0, end);
        }
        return sb.append("+00:00").toString();
    }

    public static long toMicros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    private static StringBuilder pad(StringBuilder sb, int value, int width) {
        String s = Integer.toString(value);
        for (int k = s.length(); k < width; k++) sb.append('0');
        return sb.append(s);
    }
}
