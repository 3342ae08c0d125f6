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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.access.Access;
import io.queenkv.node.testing.LocalNode;

/** Bearer tokens from {@code QUEEN_KV_TOKENS_FILE}: 401, 403, and tenants that never see each other. */
class AuthTest {
    static final String A_RW = "alpha-read-write", A_RO = "alpha-read-only", B_RW = "bravo-read-write", ADMIN = "the-admin";

    @TempDir
    static Path dir;
    static LocalNode node;

    @BeforeAll
    static void start() throws IOException {
        String tokens = "# tenants of the auth test\n\n"
                + Access.sha256(A_RW) + " tenant-a read-write\n"
                + Access.sha256(A_RO).toUpperCase() + "   tenant-a   read-only\n"
                + Access.sha256(B_RW) + " tenant-b read-write\n"
                + Access.sha256(ADMIN) + " tenant-admin admin\n";
        Path file = Files.writeString(dir.resolve("tokens"), tokens);
        node = LocalNode.start(dir.resolve("data"), Map.of("QUEEN_KV_TOKENS_FILE", file.toString()));
    }

    @AfterAll
    static void stop() throws IOException {
        if (node != null) node.close();
    }

    private static HttpResponse<String> as(String token, String method, String path, String body) {
        return node.http(method, path, body, token == null ? Map.of() : Map.of("Authorization", "Bearer " + token));
    }

    private static JsonNode results(String token, String... ops) {
        HttpResponse<String> r = as(token, "POST", Wire.KV, "[" + String.join(",", ops) + "]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return json(r).get("results");
    }

    @Test
    void aMissingOrUnknownTokenIs401() {
        String call = "[" + get("auth", "k") + "]";
        refused(as(null, "POST", Wire.KV, call), 401, "unauthorized", "unauthorized");
        refused(as("not-a-token", "POST", Wire.KV, call), 401, "unauthorized", "unauthorized");
        refused(node.http("POST", Wire.KV, call, Map.of("Authorization", "Basic " + A_RW)), 401, "unauthorized", "unauthorized");
        refused(node.http("POST", Wire.KV, call, Map.of("Authorization", "Bearer")), 401, "unauthorized", "unauthorized");
        refused(as(null, "POST", Wire.KV, "[]"), 401, "unauthorized", "unauthorized");
        refused(as(null, "GET", "/api/v1/kv/auth/k", null), 401, "unauthorized", "unauthorized");
        refused(as(null, "PUT", "/api/v1/kv/auth/k", "{\"value\":1,\"forever\":true}"), 401, "unauthorized", "unauthorized");
        refused(as("nope", "DELETE", "/api/v1/kv/auth/k", null), 401, "unauthorized", "unauthorized");
        // the bearer scheme is case-insensitive; a known token works
        assertThat(node.http("POST", Wire.KV, call, Map.of("Authorization", "bearer " + A_RW)).statusCode()).isEqualTo(200);
        // probes and metrics stay open (Prometheus scrapes without a secret)
        assertThat(node.get("/healthz").statusCode()).isEqualTo(200);
        assertThat(node.get("/readyz").statusCode()).isEqualTo(200);
        assertThat(node.get("/metrics").statusCode()).isEqualTo(200);
        assertThat(node.get("/metrics").body()).doesNotContain("tenant-a").doesNotContain("tenant-b");
    }

    @Test
    void theClusterStatusNeedsATokenOfAnyRole() {
        refused(as(null, "GET", "/api/v1/cluster", null), 401, "unauthorized", "unauthorized");
        refused(as("nope", "GET", "/api/v1/cluster", null), 401, "unauthorized", "unauthorized");
        for (String token : List.of(A_RO, A_RW, ADMIN)) {
            HttpResponse<String> r = as(token, "GET", "/api/v1/cluster", null);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).doesNotContain("tenant-");
        }
    }

    @Test
    void headOfAnAdminRouteNeedsTheAdminTokenAsGetDoes() {
        for (String path : List.of("/api/v1/admin/backup", "/api/v1/cluster")) {
            assertThat(as(null, "HEAD", path, null).statusCode()).as("HEAD " + path + " without a token").isEqualTo(401);
            assertThat(as("nope", "HEAD", path, null).statusCode()).as("HEAD " + path + " with an unknown token").isEqualTo(401);
        }
        assertThat(as(A_RW, "HEAD", "/api/v1/admin/backup", null).statusCode()).as("a tenant token").isEqualTo(403);
        HttpResponse<String> head = as(ADMIN, "HEAD", "/api/v1/admin/backup", null);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue(AdminRoutes.LOG_INDEX_HEADER)).isPresent();
        assertThat(head.headers().firstValue(AdminRoutes.KEYS_HEADER)).isPresent();
        assertThat(head.body()).isEmpty();
    }

    @Test
    void aReadOnlyTokenReadsButNeverWrites() {
        results(A_RW, put("ro", "k", "\"by-rw\""));
        JsonNode read = results(A_RO, get("ro", "k"));
        assertThat(read.get(0).get("value").asText()).isEqualTo("by-rw");
        assertThat(as(A_RO, "GET", "/api/v1/kv/ro/k", null).statusCode()).isEqualTo(200);

        refused(as(A_RO, "POST", Wire.KV, "[" + put("ro", "k", "\"by-ro\"") + "]"), 403, "forbidden", "forbidden");
        refused(as(A_RO, "POST", Wire.KV, "[" + get("ro", "k") + "," + put("ro", "other", "1") + "]"), 403, "forbidden", "forbidden");
        refused(as(A_RO, "POST", Wire.KV, "[{\"op\":\"check\",\"ns\":\"ro\",\"key\":\"k\",\"expect\":0}]"), 403, "forbidden", "forbidden");
        refused(as(A_RO, "PUT", "/api/v1/kv/ro/k", "{\"value\":\"by-ro\",\"forever\":true}"), 403, "forbidden", "forbidden");
        refused(as(A_RO, "DELETE", "/api/v1/kv/ro/k", null), 403, "forbidden", "forbidden");

        JsonNode after = results(A_RW, get("ro", "k"), get("ro", "other"));
        assertThat(after.get(0).get("value").asText()).isEqualTo("by-rw");
        assertThat(after.get(1).get("found").asBoolean()).isFalse();
    }

    @Test
    void adminTokensReadAndWrite() {
        assertThat(results(ADMIN, put("adm", "k", "1")).get(0).get("applied").asBoolean()).isTrue();
    }

    @Test
    void tenantsNeverSeeEachOther() {
        results(A_RW, put("iso", "shared", "\"a\""), put("iso", "only-a/1", "1"), put("iso", "only-a/2", "2"));
        results(B_RW, put("iso", "shared", "\"b\""), put("iso", "only-b/1", "1"));

        assertThat(results(A_RW, get("iso", "shared")).get(0).get("value").asText()).isEqualTo("a");
        assertThat(results(B_RW, get("iso", "shared")).get(0).get("value").asText()).isEqualTo("b");
        assertThat(json(as(B_RW, "GET", "/api/v1/kv/iso/shared", null)).get("value").asText()).isEqualTo("b");
        // a read-only token of tenant A sees A's data
        assertThat(results(A_RO, get("iso", "shared")).get(0).get("value").asText()).isEqualTo("a");

        JsonNode bSees = results(B_RW, "{\"op\":\"getPrefix\",\"ns\":\"iso\",\"prefix\":\"o\"}",
                "{\"op\":\"getMany\",\"ns\":\"iso\",\"keys\":[\"only-a/1\",\"only-b/1\"]}", get("iso", "only-a/1"));
        assertThat(keys(bSees.get(0))).containsExactly("only-b/1");
        assertThat(keys(bSees.get(1))).containsExactly("only-b/1");
        assertThat(bSees.get(1).get("missing").get(0).asText()).isEqualTo("only-a/1");
        assertThat(bSees.get(2).get("found").asBoolean()).isFalse();

        JsonNode aSees = results(A_RW, "{\"op\":\"getPrefix\",\"ns\":\"iso\",\"prefix\":\"o\"}");
        assertThat(keys(aSees.get(0))).containsExactly("only-a/1", "only-a/2");

        // B's writes on A's keys act on B's own (absent) keys
        JsonNode bWrites = results(B_RW, "{\"op\":\"delete\",\"ns\":\"iso\",\"key\":\"only-a/1\"}",
                "{\"op\":\"putIfAbsent\",\"ns\":\"iso\",\"key\":\"only-a/2\",\"value\":\"b\",\"forever\":true}",
                "{\"op\":\"incr\",\"ns\":\"iso\",\"key\":\"shared\",\"delta\":1,\"forever\":true}");
        assertThat(bWrites.get(0).get("reason").asText()).isEqualTo("absent");
        assertThat(bWrites.get(1).get("applied").asBoolean()).isTrue();
        assertThat(bWrites.get(2).get("reason").asText()).isEqualTo("type");
        // the type refusal on B's own "b" answers the effective number 0, and B's version of the key
        assertThat(bWrites.get(2).get("value").asInt()).isZero();
        JsonNode aAfter = results(A_RW, get("iso", "only-a/1"), get("iso", "only-a/2"), get("iso", "shared"));
        assertThat(aAfter.get(0).get("value").asInt()).isEqualTo(1);
        assertThat(aAfter.get(1).get("value").asInt()).isEqualTo(2);
        assertThat(aAfter.get(2).get("value").asText()).isEqualTo("a");
    }

    @Test
    void idempotencyKeysArePerTenant() {
        String call = "[{\"op\":\"incr\",\"ns\":\"idem\",\"key\":\"n\",\"delta\":1,\"forever\":true}]";
        HttpResponse<String> a = node.http("POST", Wire.KV, call, Map.of("Authorization", "Bearer " + A_RW, "Idempotency-Key", "same"));
        HttpResponse<String> b = node.http("POST", Wire.KV,
                "[{\"op\":\"incr\",\"ns\":\"idem\",\"key\":\"n\",\"delta\":10,\"forever\":true}]",
                Map.of("Authorization", "Bearer " + B_RW, "Idempotency-Key", "same"));
        assertThat(a.statusCode()).isEqualTo(200);
        assertThat(b.statusCode()).as(b.body()).isEqualTo(200);
        assertThat(json(a).get("results").get(0).get("value").asInt()).isEqualTo(1);
        assertThat(json(b).get("results").get(0).get("value").asInt()).isEqualTo(10);
    }

    @Test
    void aTenantFieldInTheBodyIsRefusedEvenWithAValidToken() {
        refused(as(A_RW, "POST", Wire.KV, "[{\"op\":\"get\",\"ns\":\"iso\",\"key\":\"shared\",\"tenant\":\"tenant-b\"}]"),
                400, "kv_bad_request", "kv_tenant_not_an_input");
    }

    private static List<String> keys(JsonNode result) {
        List<String> keys = new ArrayList<>();
        result.get("rows").forEach(r -> keys.add(r.get("key").asText()));
        return keys;
    }
}
