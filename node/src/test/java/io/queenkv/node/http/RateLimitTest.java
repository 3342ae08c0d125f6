package io.queenkv.node.http;

import static io.queenkv.node.http.Wire.get;
import static io.queenkv.node.http.Wire.json;
import static io.queenkv.node.http.Wire.put;
import static io.queenkv.node.http.Wire.refused;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.access.Access;
import io.queenkv.node.testing.LocalNode;

/**
 * Per-tenant token buckets: write calls at 1/s (burst 2), read calls at 2/s (burst 4). Each test
 * uses its own tenant, so each starts with full buckets.
 */
class RateLimitTest {
    static final int WRITE_BURST = 2, READ_BURST = 4;

    @TempDir
    static Path dir;
    static LocalNode node;

    @BeforeAll
    static void start() throws IOException {
        StringBuilder tokens = new StringBuilder();
        for (String t : new String[] {"writes", "reads", "empty", "single", "refill", "tenant-x", "tenant-y"})
            tokens.append(Access.sha256("token-" + t)).append(' ').append(t).append(" read-write\n");
        Path file = Files.writeString(dir.resolve("tokens"), tokens);
        node = LocalNode.start(dir.resolve("data"), Map.of("QUEEN_KV_WRITE_RATE", "1", "QUEEN_KV_READ_RATE", "2",
                "QUEEN_KV_TOKENS_FILE", file.toString()));
    }

    @AfterAll
    static void stop() throws IOException {
        if (node != null) node.close();
    }

    private static HttpResponse<String> call(String tenant, String body) {
        return node.http("POST", Wire.KV, body, Map.of("Authorization", "Bearer token-" + tenant));
    }

    private static void assertRateLimited(HttpResponse<String> r) {
        refused(r, 429, "rate_limited", "rate_limited");
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
        assertThat(Long.parseLong(r.headers().firstValue("Retry-After").get())).isGreaterThanOrEqualTo(1);
    }

    /** Sends {@code body} until refused; the first {@code burst} calls must pass, a refusal must follow soon after. */
    private static HttpResponse<String> exhaust(String tenant, String body, int burst) {
        for (int i = 0; i < burst; i++) {
            HttpResponse<String> r = call(tenant, body);
            assertThat(r.statusCode()).as("call %d of the burst: %s", i, r.body()).isEqualTo(200);
        }
        // refilling is slow (1 or 2 tokens/s); allow one extra call for a slow machine
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> r = call(tenant, body);
            if (r.statusCode() == 429) return r;
        }
        throw new AssertionError("no 429 after the burst");
    }

    @Test
    void writeCallsAreLimitedSeparatelyFromReads() {
        HttpResponse<String> limited = exhaust("writes", "[" + put("rl", "w", "1") + "]", WRITE_BURST);
        assertRateLimited(limited);
        // a refused write wrote nothing, and reads still pass
        HttpResponse<String> r = call("writes", "[" + put("rl", "never", "1") + "]");
        assertRateLimited(r);
        HttpResponse<String> read = call("writes", "[" + get("rl", "never") + "]");
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(json(read).get("results").get(0).get("found").asBoolean()).isFalse();
        // a call with any write is a write call
        assertRateLimited(call("writes", "[" + get("rl", "x") + "," + put("rl", "y", "1") + "]"));
    }

    @Test
    void readCallsHaveTheirOwnBucket() {
        HttpResponse<String> limited = exhaust("reads", "[" + get("rl", "r") + "]", READ_BURST);
        assertRateLimited(limited);
        assertThat(call("reads", "[" + put("rl", "after-reads", "1") + "]").statusCode()).isEqualTo(200);
    }

    @Test
    void anEmptyCallCostsNoToken() {
        for (int i = 0; i < 3 * READ_BURST; i++) {
            HttpResponse<String> r = call("empty", i % 2 == 0 ? "[]" : "{\"operations\":[]}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        // the buckets are still full
        for (int i = 0; i < WRITE_BURST; i++) assertThat(call("empty", "[" + put("rl", "e" + i, "1") + "]").statusCode()).isEqualTo(200);
        for (int i = 0; i < READ_BURST; i++) assertThat(call("empty", "[" + get("rl", "e") + "]").statusCode()).isEqualTo(200);
    }

    @Test
    void singleKeyRoutesCostTokensToo() {
        Map<String, String> auth = Map.of("Authorization", "Bearer token-single");
        for (int i = 0; i < WRITE_BURST; i++)
            assertThat(node.http("PUT", "/api/v1/kv/rl/s" + i, "{\"value\":1,\"forever\":true}", auth).statusCode()).isEqualTo(200);
        HttpResponse<String> r = node.http("DELETE", "/api/v1/kv/rl/s0", null, auth);
        if (r.statusCode() != 429) r = node.http("DELETE", "/api/v1/kv/rl/s0", null, auth);
        assertRateLimited(r);
        for (int i = 0; i < READ_BURST; i++) assertThat(node.http("GET", "/api/v1/kv/rl/s0", null, auth).statusCode()).isEqualTo(200);
        r = node.http("GET", "/api/v1/kv/rl/s0", null, auth);
        if (r.statusCode() != 429) r = node.http("GET", "/api/v1/kv/rl/s0", null, auth);
        assertRateLimited(r);
    }

    @Test
    void aTenantsBucketDoesNotDrainAnothers() {
        assertRateLimited(exhaust("tenant-x", "[" + put("rl", "x", "1") + "]", WRITE_BURST));
        assertThat(call("tenant-y", "[" + put("rl", "x", "1") + "]").statusCode()).isEqualTo(200);
    }

    @Test
    void tokensRefillAtTheRate() {
        HttpResponse<String> limited = exhaust("refill", "[" + put("rl", "refill", "1") + "]", WRITE_BURST);
        long retryAfter = Long.parseLong(limited.headers().firstValue("Retry-After").orElseThrow());
        Awaitility.await().atMost(Duration.ofSeconds(retryAfter + 3)).pollInterval(Duration.ofMillis(250))
                .until(() -> call("refill", "[" + put("rl", "refill", "2") + "]").statusCode() == 200);
    }
}
