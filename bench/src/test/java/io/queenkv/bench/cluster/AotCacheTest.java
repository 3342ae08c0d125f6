package io.queenkv.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AotCacheTest {
    @Test
    void readsTheFeatureReleaseOfAJavaVersionLine() {
        assertThat(AotCache.featureRelease("openjdk version \"25.0.3\" 2026-04-21 LTS")).isEqualTo(25);
        assertThat(AotCache.featureRelease("openjdk version \"17.0.15\" 2025-04-15")).isEqualTo(17);
        assertThat(AotCache.featureRelease("java version \"1.8.0_392\"")).isEqualTo(8);
        assertThat(AotCache.featureRelease("openjdk version \"26-ea\" 2026-03-17")).isEqualTo(26);
        assertThat(AotCache.featureRelease("unknown (No such file or directory)")).isZero();
    }
}
