package io.queenkv.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class MeasurementTest {
    @Test
    void percentilesInMillisecondsAndTheRateOverTheWindow() {
        Histogram micros = new Histogram(3);
        for (int i = 1; i <= 1000; i++) micros.recordValue(i * 1000L); // 1 ms … 1000 ms
        Measurement m = Measurement.of(micros, 7, Duration.ofSeconds(4));

        assertThat(m.ops()).isEqualTo(1000);
        assertThat(m.errors()).isEqualTo(7);
        assertThat(m.opsPerSecond()).isEqualTo(250.0);
        assertThat(m.p50Millis()).isCloseTo(500, within(1.0));
        assertThat(m.p99Millis()).isCloseTo(990, within(1.0));
        assertThat(m.p999Millis()).isCloseTo(999, within(1.0));
        assertThat(m.maxMillis()).isCloseTo(1000, within(1.0));
    }

    @Test
    void anEmptyWindowIsAllZeros() {
        Measurement m = Measurement.of(new Histogram(3), 0, Duration.ofSeconds(5));
        assertThat(m.opsPerSecond()).isZero();
        assertThat(m.p99Millis()).isZero();
        assertThat(m.maxMillis()).isZero();
    }
}
