package io.queenkv.operator.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.queenkv.operator.model.Model;

/** Durations in the spec as Kubernetes users write them; what the CRD's pattern refuses, the operator reads as nothing. */
class SpecDurationTest {
    @Test
    void readsHoursMinutesAndSecondsAndZero() {
        assertThat(SpecDuration.parse("10m")).contains(Duration.ofMinutes(10));
        assertThat(SpecDuration.parse("90s")).contains(Duration.ofSeconds(90));
        assertThat(SpecDuration.parse("1h30m")).contains(Duration.ofMinutes(90));
        assertThat(SpecDuration.parse("2h5s")).contains(Duration.ofHours(2).plusSeconds(5));
        assertThat(SpecDuration.parse("0")).contains(Duration.ZERO);
    }

    @Test
    void refusesWhatThePatternRefuses() {
        for (String bad : new String[] {"", "10", "1.5m", "10min", "30m1h", "-1m", "1d", "500ms", " 10m", "99999999999999999999h"})
            assertThat(SpecDuration.parse(bad)).as(bad).isEmpty();
        assertThat(SpecDuration.parse(null)).isEmpty();
    }

    @Test
    void formatsAsTheSpecWritesIt() {
        for (String s : new String[] {"0", "1s", "10m", "1h", "1h30m", "2h5s", "1h1m1s"})
            assertThat(SpecDuration.format(SpecDuration.parse(s).orElseThrow())).isEqualTo(s);
    }

    @Test
    void replacementDefaultsToTenMinutesAndIsOffAtZeroOrOnAnUnreadableValue() {
        QueenKvClusterSpec spec = new QueenKvClusterSpec();
        assertThat(Model.replaceNotServingAfter(spec)).isEqualTo(Duration.ofMinutes(10));
        spec.setReplaceNotServingAfter(null);
        assertThat(Model.replaceNotServingAfter(spec)).isEqualTo(Duration.ofMinutes(10));
        spec.setReplaceNotServingAfter("0");
        assertThat(Model.replaceNotServingAfter(spec)).isZero();
        spec.setReplaceNotServingAfter("ten minutes");
        assertThat(Model.replaceNotServingAfter(spec)).isZero();
    }
}
