package io.queenkv.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalDouble;

import org.junit.jupiter.api.Test;

import io.queenkv.bench.load.Measurement;

class RatioTest {
    private static Measurement opsPerSecond(double rate) {
        return new Measurement((long) rate, 0, 1, rate, 1, 2, 3, 4);
    }

    @Test
    void queenKvOverEtcd() {
        assertThat(Ratio.throughput(opsPerSecond(230), opsPerSecond(1000))).hasValue(0.23);
        assertThat(Ratio.format(Ratio.throughput(opsPerSecond(460), opsPerSecond(1000)))).isEqualTo("0.46×");
    }

    @Test
    void noRatioWhenASideIsMissingOrEtcdAnsweredNothing() {
        assertThat(Ratio.throughput(null, opsPerSecond(1000))).isEmpty();
        assertThat(Ratio.throughput(opsPerSecond(10), null)).isEmpty();
        assertThat(Ratio.throughput(opsPerSecond(10), opsPerSecond(0))).isEmpty();
        assertThat(Ratio.format(OptionalDouble.empty())).isEqualTo("n/a");
    }
}
