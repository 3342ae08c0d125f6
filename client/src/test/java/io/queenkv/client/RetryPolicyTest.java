package io.queenkv.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.queenkv.client.RetryPolicy.Failure;

class RetryPolicyTest {
    private final RetryPolicy policy = RetryPolicy.DEFAULT;

    @Test
    void threeAttemptsByDefault() {
        assertThat(policy.delayAfter(1, Failure.UNAVAILABLE, null, 0)).isPresent();
        assertThat(policy.delayAfter(2, Failure.CONNECTION_FAILED, null, 0)).isPresent();
        assertThat(policy.delayAfter(3, Failure.TIMEOUT, null, 0)).isEmpty();
        assertThat(policy.delayAfter(3, Failure.RATE_LIMITED, Duration.ofSeconds(1), 0)).isEmpty();
    }

    @Test
    void backoffDoublesWithJitterAndIsCapped() {
        RetryPolicy p = new RetryPolicy(10, Duration.ofMillis(100), Duration.ofSeconds(2));
        assertThat(p.delayAfter(1, Failure.UNAVAILABLE, null, 0.999).orElseThrow().toMillis()).isBetween(99L, 100L);
        assertThat(p.delayAfter(1, Failure.UNAVAILABLE, null, 0).orElseThrow()).isEqualTo(Duration.ofMillis(50));
        assertThat(p.delayAfter(2, Failure.UNAVAILABLE, null, 0).orElseThrow()).isEqualTo(Duration.ofMillis(100));
        assertThat(p.delayAfter(3, Failure.TIMEOUT, null, 0).orElseThrow()).isEqualTo(Duration.ofMillis(200));
        assertThat(p.delayAfter(9, Failure.TIMEOUT, null, 0.999).orElseThrow().toMillis()).isBetween(1990L, 2000L);
    }

    @Test
    void rateLimitWaitsRetryAfterOnTheSameEndpoint() {
        assertThat(policy.delayAfter(1, Failure.RATE_LIMITED, Duration.ofSeconds(3), 0.5)).contains(Duration.ofSeconds(3));
        assertThat(Failure.RATE_LIMITED.switchesEndpoint()).isFalse();
        assertThat(Failure.UNAVAILABLE.switchesEndpoint()).isTrue();
        assertThat(Failure.CONNECTION_FAILED.switchesEndpoint()).isTrue();
        assertThat(Failure.TIMEOUT.switchesEndpoint()).isTrue();
    }

    @Test
    void oneAttemptMeansNoRetry() {
        assertThat(policy.withMaxAttempts(1).delayAfter(1, Failure.UNAVAILABLE, null, 0)).isEmpty();
        assertThatThrownBy(() -> policy.withMaxAttempts(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
