package io.queenkv.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

class LifetimeTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);

    @Test
    void parsesSuffixes() {
        assertThat(Lifetime.parseSeconds("45s")).isEqualTo(45);
        assertThat(Lifetime.parseSeconds("2m")).isEqualTo(120);
        assertThat(Lifetime.parseSeconds("12h")).isEqualTo(43_200);
        assertThat(Lifetime.parseSeconds("30d")).isEqualTo(2_592_000);
        assertThat(Lifetime.parseSeconds("1h30m")).isEqualTo(5_400);
        assertThat(Lifetime.parseSeconds(" 1D ")).isEqualTo(86_400);
        assertThat(Lifetime.ttl("30d")).isEqualTo(new Lifetime.Ttl(2_592_000));
    }

    @Test
    void refusesBadText() {
        for (String bad : new String[] {"", "30", "d", "1w", "-1s", "1.5h", "0s", "0d0h", "1 h"})
            assertThatThrownBy(() -> Lifetime.ttl(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void durationRoundsUpAndMustBePositive() {
        assertThat(Lifetime.ttl(Duration.ofMillis(1500))).isEqualTo(new Lifetime.Ttl(2));
        assertThat(Lifetime.ttl(Duration.ofMinutes(5))).isEqualTo(new Lifetime.Ttl(300));
        assertThat(Lifetime.ttl(Duration.ofNanos(1))).isEqualTo(new Lifetime.Ttl(1));
        assertThatThrownBy(() -> Lifetime.ttl(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Lifetime.ttl(Duration.ofSeconds(-3))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Lifetime.ttlSeconds(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void untilCountsFromTheClientClockRoundingUp() {
        assertThat(Lifetime.until(Instant.parse("2026-11-30T10:00:10Z")).ttlSecondsAt(CLOCK)).isEqualTo(10);
        assertThat(Lifetime.until(Instant.parse("2026-11-30T10:00:10.001Z")).ttlSecondsAt(CLOCK)).isEqualTo(11);
        assertThat(Lifetime.until(Instant.parse("2026-11-30T10:00:00.000001Z")).ttlSecondsAt(CLOCK)).isEqualTo(1);
    }

    @Test
    void untilInThePastIsRefused() {
        Lifetime now = Lifetime.until(CLOCK.instant());
        Lifetime past = Lifetime.until(CLOCK.instant().minusSeconds(1));
        assertThatThrownBy(() -> now.ttlSecondsAt(CLOCK)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("over");
        assertThatThrownBy(() -> past.ttlSecondsAt(CLOCK)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void foreverIsMinusOne() {
        assertThat(Lifetime.forever().ttlSecondsAt(CLOCK)).isEqualTo(-1);
    }
}
