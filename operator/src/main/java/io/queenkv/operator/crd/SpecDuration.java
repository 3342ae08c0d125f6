package io.queenkv.operator.crd;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * A duration in the spec, written as Kubernetes users write them (Go's {@code time.Duration} without
 * fractions or sub-second units): whole hours, minutes and seconds in that order, {@code 90s},
 * {@code 10m}, {@code 1h30m}; or {@code 0}.
 */
public final class SpecDuration {
    /** The CRD's pattern (RE2: no look-ahead), so {@code kubectl apply} refuses anything {@link #parse} would not read. */
    public static final String PATTERN = "^(0|[0-9]+h([0-9]+m)?([0-9]+s)?|[0-9]+m([0-9]+s)?|[0-9]+s)$";

    private static final java.util.regex.Pattern FULL = java.util.regex.Pattern.compile(PATTERN);
    private static final java.util.regex.Pattern PART = java.util.regex.Pattern.compile("([0-9]+)([hms])");

    private SpecDuration() {}

    /** The duration {@code text} writes, or empty when it does not match {@link #PATTERN}. */
    public static Optional<Duration> parse(String text) {
        if (text == null || !FULL.matcher(text).matches()) return Optional.empty();
        Duration d = Duration.ZERO;
        Matcher m = PART.matcher(text);
        try {
            while (m.find()) {
                long n = Long.parseLong(m.group(1));
                d = d.plus(switch (m.group(2)) {
                    case "h" -> Duration.ofHours(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofSeconds(n);
                });
            }
        } catch (ArithmeticException | NumberFormatException tooLong) {
            return Optional.empty();
        }
        return Optional.of(d);
    }

    /** {@code d} as the spec writes it ({@code 1h30m}, {@code 10m}, {@code 1s}, {@code 0}), whole seconds; {@link #parse} reads it back. */
    public static String format(Duration d) {
        long s = d.toSeconds();
        if (s == 0) return "0";
        return (s >= 3600 ? s / 3600 + "h" : "") + (s % 3600 >= 60 ? s % 3600 / 60 + "m" : "") + (s % 60 > 0 ? s % 60 + "s" : "");
    }
}
