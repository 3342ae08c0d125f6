package io.queenkv.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.queenkv.bench.load.WorkloadSpec;

class BenchOptionsTest {
    @Test
    void durations() {
        assertThat(BenchOptions.parseDuration("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(BenchOptions.parseDuration("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(BenchOptions.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(BenchOptions.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(BenchOptions.parseDuration("45")).isEqualTo(Duration.ofSeconds(45));
    }

    @Test
    void workloadFilterByIdOrPrefix() {
        assertThat(BenchOptions.parseWorkloads("all")).containsExactly(WorkloadSpec.values());
        assertThat(BenchOptions.parseWorkloads("cas-one-key-1, put-256B-*"))
                .containsExactly(WorkloadSpec.PUT_1, WorkloadSpec.PUT_64, WorkloadSpec.PUT_256, WorkloadSpec.CAS_1);
        assertThatThrownBy(() -> BenchOptions.parseWorkloads("nope")).hasMessageContaining("put-256B-1");
    }

    @Test
    void workloadIdsAreDistinct() {
        assertThat(java.util.Arrays.stream(WorkloadSpec.values()).map(WorkloadSpec::id).distinct().count())
                .isEqualTo(WorkloadSpec.values().length);
    }
}
