package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * TTL answers agree on every node (the leader stamps one instant per entry), and settings changed
 * through {@code PUT /api/v1/admin/settings} are in force on every node at the same
 * {@code settingsIndex}, also after a node restarts. One 3-node cluster for both tests.
 */
@Timeout(180)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SettingsAndTimeTest {
    static final String NS = "settings";

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;
    final KvHttp http = ClusterChecks.HTTP;

    @BeforeAll
    void start() {
        cluster = new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000")).start();
    }

    @AfterAll
    void close() {
        if (cluster != null) cluster.close();
    }

    @Test
    void ttlAnswersAgreeOnEveryNode() {
        logs.watch(cluster);
        String follower = cluster.anyFollower();
        KvHttp.Reply put = http.call(cluster.url(follower), KvHttp.opPut(NS, "session", KvHttp.value("s"), 600),
                KvHttp.opPut(NS, "short", KvHttp.value("brief"), 3));
        assertThat(put.ok()).as("%s", put).isTrue();
        long version = put.result(0).path("version").asLong();

        List<String> expiresAt = new ArrayList<>(), updatedAt = new ArrayList<>();
        for (String id : cluster.ids()) {
            KvHttp.Reply get = http.get(cluster.url(id), NS, "session");
            assertThat(get.ok()).as("get on %s: %s", id, get).isTrue();
            JsonNode e = get.result(0);
            assertThat(e.path("version").asLong()).isEqualTo(version);
            expiresAt.add(e.path("expiresAt").asText());
            updatedAt.add(e.path("updatedAt").asText());
        }
        ClusterChecks.say("session on %s: expiresAt %s, updatedAt %s", cluster.ids(), expiresAt, updatedAt);
        assertThat(expiresAt).as("expiresAt on every node").containsOnly(expiresAt.get(0));
        assertThat(updatedAt).as("updatedAt on every node").containsOnly(updatedAt.get(0));
        Instant expires = java.time.OffsetDateTime.parse(expiresAt.get(0)).toInstant();
        Instant updated = java.time.OffsetDateTime.parse(updatedAt.get(0)).toInstant();
        assertThat(Duration.between(updated, expires)).isEqualTo(Duration.ofSeconds(600));
        assertThat(Duration.between(updated, Instant.now()).abs()).isLessThan(Duration.ofSeconds(30));

        // The 3-second key expires on every node: never returned, and no longer counts as existing.
        await("short to expire on every node").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            for (String id : cluster.ids()) {
                KvHttp.Reply get = http.get(cluster.url(id), NS, "short");
                assertThat(get.ok()).isTrue();
                assertThat(get.result(0).path("found").asBoolean()).as("short found on %s", id).isFalse();
            }
        });
        KvHttp.Reply again = http.putIfAbsent(cluster.url(cluster.ids().get(2)), NS, "short", KvHttp.value("again"));
        assertThat(again.result(0).path("applied").asBoolean()).as("putIfAbsent over an expired key: %s", again).isTrue();
    }

    @Test
    void settingsAreEnforcedByEveryNodeAtTheSameIndex() {
        logs.watch(cluster);
        String follower = cluster.anyFollower();
        KvHttp.Reply set = http.adminSettings(cluster.url(follower), Map.of("maxValueBytes", 2000, "maxOpsPerCall", 4));
        assertThat(set.ok()).as("PUT settings through follower %s: %s", follower, set).isTrue();
        long answered = set.body().path("settingsIndex").asLong();
        assertThat(set.body().path("settings").path("maxValueBytes").asInt()).isEqualTo(2000);
        long settingsIndex = assertSettingsEverywhere();

        // A node restarted from its data dir keeps the committed settings (not its environment's).
        String restarted = cluster.anyFollower();
        cluster.kill9(restarted);
        cluster.restart(restarted);
        assertThat(assertSettingsEverywhere()).as("settingsIndex after restarting %s", restarted).isEqualTo(settingsIndex);
        assertThat(answered).as("settingsIndex answered by PUT /api/v1/admin/settings (%s) vs the one every node reports", set)
                .isEqualTo(settingsIndex);
    }

    /** Waits until every node reports the new settings at one settingsIndex, checks they enforce them; returns the index. */
    private long assertSettingsEverywhere() {
        java.util.concurrent.atomic.AtomicLong agreed = new java.util.concurrent.atomic.AtomicLong();
        await("every node to report the new settings at one settingsIndex").atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            List<Long> indexes = new ArrayList<>();
            for (String id : cluster.ids()) {
                JsonNode c = http.cluster(cluster.url(id)).body();
                indexes.add(c.path("settingsIndex").asLong());
                assertThat(c.path("settings").path("maxValueBytes").asInt()).as("maxValueBytes on %s", id).isEqualTo(2000);
                assertThat(c.path("settings").path("maxOpsPerCall").asInt()).as("maxOpsPerCall on %s", id).isEqualTo(4);
            }
            assertThat(indexes).as("settingsIndex on %s", cluster.ids()).containsOnly(indexes.get(0));
            agreed.set(indexes.get(0));
        });
        long settingsIndex = agreed.get();
        for (String id : cluster.ids()) {
            String url = cluster.url(id);
            KvHttp.Reply big = http.put(url, NS, "big-" + id, KvHttp.value("x".repeat(2100)));
            assertThat(big.status()).as("2100-byte value on %s: %s", id, big).isEqualTo(413);
            assertThat(big.body().path("reason").asText()).isEqualTo("kv_value_too_large");
            KvHttp.Reply fits = http.put(url, NS, "fits-" + id, KvHttp.value("x".repeat(1900)));
            assertThat(fits.ok()).as("1900-byte value on %s: %s", id, fits).isTrue();
            ObjectNode[] five = new ObjectNode[5];
            for (int i = 0; i < 5; i++) five[i] = KvHttp.opGet(NS, "k" + i);
            KvHttp.Reply tooMany = http.call(url, five);
            assertThat(tooMany.status()).as("5 ops on %s: %s", id, tooMany).isEqualTo(400);
            assertThat(tooMany.body().path("reason").asText()).isEqualTo("kv_too_many_ops");
            KvHttp.Reply four = http.call(url, five[0], five[1], five[2], five[3]);
            assertThat(four.ok()).as("4 ops on %s: %s", id, four).isTrue();
        }
        ClusterChecks.say("settings at index %d in force on %s", settingsIndex, cluster.ids());
        return settingsIndex;
    }
}
