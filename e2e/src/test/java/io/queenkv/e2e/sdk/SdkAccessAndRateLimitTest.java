package io.queenkv.e2e.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.client.Lifetime;
import io.queenkv.client.QueenKv;
import io.queenkv.client.QueenKvRefusedException;
import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.NodeProcessCluster;

/** Bearer tokens and the 429 Retry-After handling of the SDK, against one node with auth on and a low write rate. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SdkAccessAndRateLimitTest {
    private static final String WRITER = "writer-token-1";
    private static final String READER = "reader-token-1";

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();

    private NodeProcessCluster cluster;

    @BeforeAll
    void start() throws Exception {
        Path tokens = Files.createTempFile("queenkv-sdk-tokens", ".txt");
        Files.writeString(tokens, sha256(WRITER) + " tenant-a read-write\n" + sha256(READER) + " tenant-a read-only\n");
        tokens.toFile().deleteOnExit();
        cluster = new NodeProcessCluster(1, Map.of("QUEEN_KV_TOKENS_FILE", tokens.toString(), "QUEEN_KV_WRITE_RATE", "1")).start();
    }

    @AfterAll
    void stop() {
        if (cluster != null) cluster.close();
    }

    private static String sha256(String token) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void tokensAndRetryAfter() {
        logs.watch(cluster);
        String url = cluster.url("n1");
        try (QueenKv anonymous = QueenKv.connect(url);
             QueenKv reader = QueenKv.builder().endpoints(url).token(READER).build();
             QueenKv writer = QueenKv.builder().endpoints(url).token(WRITER).build();
             QueenKv impatient = QueenKv.builder().endpoints(url).token(WRITER).maxAttempts(1).build()) {
            assertThatThrownBy(() -> anonymous.get("acl", "k"))
                    .isInstanceOfSatisfying(QueenKvRefusedException.class, e -> assertThat(e.status()).isEqualTo(401));
            assertThatThrownBy(() -> reader.put("acl", "k", 1, Lifetime.forever()))
                    .isInstanceOfSatisfying(QueenKvRefusedException.class, e -> {
                        assertThat(e.status()).isEqualTo(403);
                        assertThat(e.reason()).isEqualTo("forbidden");
                    });

            // write rate 1/s, burst 2: the third and fourth writes get 429 and wait out Retry-After
            long t0 = System.nanoTime();
            for (int i = 1; i <= 4; i++) assertThat(writer.incr("acl", "n", 1, Lifetime.forever()).longValue()).isEqualTo(i);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
            assertThat(reader.get("acl", "n", Integer.class).value()).isEqualTo(4);

            // without retries a 429 surfaces as a refusal carrying Retry-After
            assertThatThrownBy(() -> {
                for (int i = 0; i < 5; i++) impatient.incr("acl", "m", 1, Lifetime.forever());
            }).isInstanceOfSatisfying(QueenKvRefusedException.class, e -> {
                assertThat(e.status()).isEqualTo(429);
                assertThat(e.reason()).isEqualTo("rate_limited");
                assertThat(e.retryAfter()).hasValueSatisfying(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ofSeconds(1)));
            });
        }
    }
}
