package io.queenkv.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long a written key lives. Every write that creates a value ({@code put}, {@code putIfAbsent},
 * {@code incr}) must declare one; the SDK turns it into {@code ttlSeconds} or {@code forever:true}.
 *
 * <pre>{@code
 * Lifetime.ttl(Duration.ofMinutes(5))
 * Lifetime.ttl("30d")          // also "90s", "2m", "12h", "1h30m"
 * Lifetime.until(deadline)     // seconds left on the client's clock, rounded up
 * Lifetime.forever()
 * }</pre>
 */
public sealed interface Lifetime permits Lifetime.Ttl, Lifetime.Until, Lifetime.Forever {

    /** A time to live in whole seconds (&gt; 0). */
    record Ttl(long seconds) implements Lifetime {
        public Ttl {
            if (seconds <= 0) throw new IllegalArgumentException("a TTL must be at least one second, got " + seconds + " s");
        }

        @Override
        public String toString() {
            return "ttl(" + seconds + "s)";
        }
    }

    /** Lives until an instant; turned into {@code ttlSeconds} when the call is sent. */
    record Until(Instant instant) implements Lifetime {
        public Until {
            Objects.requireNonNull(instant, "instant");
        }

        @Override
        public String toString() {
            return "until(" + instant + ")";
        }
    }

    /** Never expires. */
    record Forever() implements Lifetime {
        @Override
        public String toString() {
            return "forever()";
        }
    }

    /** A TTL; a fraction of a second is rounded up. Zero or negative is refused. */
    static Lifetime ttl(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) throw new IllegalArgumentException("a TTL must be positive, got " + ttl);
        long seconds = ttl.getSeconds() + (ttl.getNano() > 0 ? 1 : 0);
        return new Ttl(seconds);
    }

    /** A TTL in seconds. */
    static Lifetime ttlSeconds(long seconds) {
        return new Ttl(seconds);
    }

    /**
     * A TTL written as numbers with unit suffixes {@code s}, {@code m}, {@code h}, {@code d}:
     * {@code "45s"}, {@code "2m"}, {@code "12h"}, {@code "30d"}, {@code "1h30m"}.
     */
    static Lifetime ttl(String text) {
        return new Ttl(parseSeconds(text));
    }

    /** Lives until {@code instant}; refused (when the call is sent) if it is not in the future. */
    static Lifetime until(Instant instant) {
        return new Until(instant);
    }

    static Lifetime forever() {
        return new Forever();
    }

    /**
     * The {@code ttlSeconds} to send at {@code clock}'s now, or {@code -1} for {@code forever}.
     * An {@link Until} in the past (or now) is refused with {@link IllegalArgumentException}.
     */
    default long ttlSecondsAt(Clock clock) {
        if (this instanceof Forever) return -1;
        if (this instanceof Ttl t) return t.seconds();
        Instant until = ((Until) this).instant();
        Duration left = Duration.between(clock.instant(), until);
        if (left.isNegative() || left.isZero())
            throw new IllegalArgumentException("the lifetime until(" + until + ") is already over (client clock " + clock.instant() + ")");
        return left.getSeconds() + (left.getNano() > 0 ? 1 : 0);
    }

    /** Parses {@code "30d"}, {@code "2m"}, {@code "12h"}, {@code "45s"}, {@code "1h30m"} into seconds. */
    static long parseSeconds(String text) {
        Objects.requireNonNull(text, "ttl");
        String s = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (!Holder.WHOLE.matcher(s).matches())
            throw new IllegalArgumentException("not a TTL: \"" + text + "\" (write e.g. \"45s\", \"2m\", \"12h\", \"30d\", \"1h30m\")");
        long total = 0;
        Matcher m = Holder.PART.matcher(s);
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            long unit = switch (m.group(2)) {
                case "s" -> 1;
                case "m" -> 60;
                case "h" -> 3600;
                default -> 86400;
            };
            total = Math.addExact(total, Math.multiplyExact(n, unit));
        }
        if (total <= 0) throw new IllegalArgumentException("a TTL must be positive, got \"" + text + "\"");
        return total;
    }

    /** Compiled patterns (interfaces cannot hold private static fields). */
    final class Holder {
        private static final Pattern WHOLE = Pattern.compile("(\\d{1,12}[smhd])+");
        private static final Pattern PART = Pattern.compile("(\\d{1,12})([smhd])");

        private Holder() {}
    }
}
