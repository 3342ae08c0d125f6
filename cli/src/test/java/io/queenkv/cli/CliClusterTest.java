package io.queenkv.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.node.Node;
import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.testing.LocalNode;

/**
 * Every command against a real three-node cluster in this JVM, the CLI run in-process as a script
 * would run it: its output in both formats and its exit codes.
 */
class CliClusterTest {
    @TempDir
    static Path dir;
    static List<LocalNode> nodes;
    static CliRunner cli;

    @BeforeAll
    static void start() throws IOException {
        nodes = LocalNode.startCluster(dir.resolve("cluster"), 3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"));
        cli = CliRunner.against(nodes.stream().map(n -> n.baseUrl).toArray(String[]::new));
    }

    @AfterAll
    static void stop() throws IOException {
        for (LocalNode n : nodes) n.close();
    }

    @Test
    void putGetDeleteInBothFormats() {
        CliRunner.Result put = cli.run("put", "orders", "9137", "{\"status\":\"paid\"}", "--ttl", "30d").exits(0);
        assertThat(put.lines().get(0)).matches("KEY +RESULT +VERSION +VALUE");
        assertThat(put.lines().get(1)).matches("9137 +applied +\\d+ +\\{\"status\":\"paid\"}");

        JsonNode got = cli.run("get", "orders", "9137", "-o", "json").exits(0).json();
        assertThat(got.get("found").asBoolean()).isTrue();
        assertThat(got.get("value")).isEqualTo(Json.MAPPER.createObjectNode().put("status", "paid"));
        assertThat(got.get("expiresAt").asText()).endsWith("+00:00");
        long version = got.get("version").asLong();

        // The node's own answer to the same read has the same shape and values.
        JsonNode node = Json.parse(nodes.get(0).get("/api/v1/kv/orders/9137").body().getBytes(), "the node's answer");
        assertThat(got).isEqualTo(node);

        List<String> table = cli.run("get", "orders", "9137").exits(0).lines();
        assertThat(table.get(0)).matches("KEY +VERSION +EXPIRES_AT +UPDATED_AT +VALUE");
        assertThat(table.get(1)).startsWith("9137").contains(" " + version + " ", "{\"status\":\"paid\"}");

        JsonNode deleted = cli.run("-o", "json", "delete", "orders", "9137").exits(0).json();
        assertThat(deleted.get("applied").asBoolean()).isTrue();
        assertThat(deleted.get("version").asLong()).isEqualTo(version);
        assertThat(cli.run("get", "orders", "9137").exits(1).err()).isEqualTo("queen-kv: orders/9137: not found\n");
    }

    @Test
    void absentAndLostCompareAndSwapHaveTheirOwnExitCodes() {
        assertThat(cli.run("get", "cas", "none").exits(1).out()).isEmpty();
        JsonNode absent = cli.run("get", "cas", "none", "-o", "json").exits(1).json();
        assertThat(absent.get("found").asBoolean()).isFalse();
        cli.run("delete", "cas", "none").exits(1);

        long v1 = cli.run("-o", "json", "put", "cas", "k", "1", "--forever", "--expect-absent").exits(0).json().get("version").asLong();
        JsonNode exists = cli.run("-o", "json", "put", "cas", "k", "2", "--forever", "--expect-absent").exits(5).json();
        assertThat(exists.get("reason").asText()).isEqualTo("exists");
        assertThat(exists.get("version").asLong()).isEqualTo(v1);

        CliRunner.Result lost = cli.run("put", "cas", "k", "3", "--forever", "--expect", Long.toString(v1 + 1000)).exits(5);
        assertThat(lost.err()).isEqualTo("queen-kv: cas/k: not applied (version): it is at version " + v1 + "\n");
        assertThat(lost.out()).contains("not applied: version");
        long v2 = cli.run("-o", "json", "put", "cas", "k", "4", "--forever", "--expect", Long.toString(v1)).exits(0).json().get("version").asLong();
        assertThat(v2).isGreaterThan(v1);

        cli.run("delete", "cas", "k", "--expect", Long.toString(v1)).exits(5);
        cli.run("put", "cas", "gone", "1", "--forever", "--expect", "7").exits(1);
        cli.run("delete", "cas", "k", "--expect", Long.toString(v2)).exits(0);
    }

    @Test
    void aValueComesFromStdinAndNumbersStayExact() {
        cli.runWithStdin("{\"big\": 12345678901234567890.5}\n", "put", "stdin", "v", "-", "--ttl", "1h").exits(0);
        assertThat(cli.run("-o", "json", "get", "stdin", "v").exits(0).json().at("/value/big").decimalValue())
                .isEqualByComparingTo("12345678901234567890.5");

        cli.run("incr", "counters", "d", "--by", "0.1", "--forever").exits(0);
        assertThat(cli.run("-o", "json", "incr", "counters", "d", "--by", "0.2", "--forever").exits(0).json().get("value").decimalValue())
                .isEqualByComparingTo("0.3");
    }

    @Test
    void incrCountsWithinItsBounds() {
        assertThat(cli.run("-o", "json", "incr", "limits", "api", "--max", "3", "--ttl", "2m").exits(0).json().get("value").asLong()).isEqualTo(1);
        assertThat(cli.run("-o", "json", "incr", "limits", "api", "--by", "2", "--max", "3", "--ttl", "2m").exits(0).json().get("value").asLong()).isEqualTo(3);
        CliRunner.Result over = cli.run("incr", "limits", "api", "--max", "3", "--ttl", "2m").exits(5);
        assertThat(over.err()).isEqualTo("queen-kv: limits/api: not applied (limit): the counter is at 3\n");
        cli.run("incr", "limits", "api", "--by", "-5", "--min", "0", "--ttl", "2m").exits(5);
        cli.run("put", "limits", "text", "\"abc\"", "--forever").exits(0);
        assertThat(cli.run("incr", "limits", "text", "--forever").exits(5).err()).contains("(type)");
    }

    @Test
    void listPagesThroughAPrefixWithLimitAndCursor() {
        String ops = IntStream.range(0, 150).mapToObj(i -> String.format(
                "{\"op\":\"put\",\"ns\":\"listing\",\"key\":\"k%03d\",\"value\":%d,\"forever\":true}", i, i)).collect(Collectors.joining(",", "[", "]"));
        cli.runWithStdin(ops, "batch").exits(0);
        cli.run("put", "listing", "other", "1", "--forever").exits(0);

        // 150 rows: more than the node's page of 100.
        JsonNode all = cli.run("-o", "json", "list", "listing", "k").exits(0).json();
        assertThat(all.get("rows")).hasSize(150);
        assertThat(all.get("truncated").asBoolean()).isFalse();
        assertThat(all.at("/rows/149/key").asText()).isEqualTo("k149");
        assertThat(cli.run("list", "listing", "k").exits(0).lines()).hasSize(151);

        JsonNode first = cli.run("-o", "json", "list", "listing", "k", "--limit", "10").exits(0).json();
        assertThat(first.get("rows")).hasSize(10);
        assertThat(first.get("truncated").asBoolean()).isTrue();
        assertThat(first.get("nextAfter").asText()).isEqualTo("k009");
        JsonNode rest = cli.run("-o", "json", "list", "listing", "k", "--after", "k009", "--keys-only").exits(0).json();
        assertThat(rest.get("rows")).hasSize(140);
        assertThat(rest.at("/rows/0/key").asText()).isEqualTo("k010");
        assertThat(rest.at("/rows/0").has("value")).isFalse();

        List<String> table = cli.run("list", "listing", "k", "--limit", "2", "--keys-only").exits(0).lines();
        assertThat(table).hasSize(4);
        assertThat(table.get(0)).matches("KEY +VERSION +EXPIRES_AT +UPDATED_AT");
        assertThat(table.get(1)).startsWith("k000").contains("forever");
        assertThat(table.get(3)).isEqualTo("(more keys follow: --after k001)");
        JsonNode exact = cli.run("-o", "json", "list", "listing", "k14", "--limit", "10").exits(0).json();
        assertThat(exact.get("rows")).hasSize(10);
        assertThat(exact.get("truncated").asBoolean()).as("exactly 10 keys start with k14").isFalse();
    }

    @Test
    void batchFromStdinOrAFileIsOneAtomicCall() throws IOException {
        String call = "{\"operations\":["
                + "{\"op\":\"put\",\"ns\":\"batch\",\"key\":\"a\",\"value\":{\"n\":1},\"ttlSeconds\":3600},"
                + "{\"op\":\"incr\",\"ns\":\"batch\",\"key\":\"count\",\"delta\":1,\"forever\":true},"
                + "{\"op\":\"get\",\"ns\":\"batch\",\"key\":\"a\"},"
                + "{\"op\":\"getMany\",\"ns\":\"batch\",\"keys\":[\"a\",\"missing\"]},"
                + "{\"op\":\"delete\",\"ns\":\"batch\",\"key\":\"never\"},"
                + "{\"op\":\"getPrefix\",\"ns\":\"batch\",\"prefix\":\"a\",\"limit\":5000}]}";
        JsonNode answer = cli.runWithStdin(call, "-o", "json", "batch", "-").exits(0).json();
        assertThat(answer.get("results")).hasSize(6);
        // A limit past 1000 is clamped, as the node does.
        assertThat(answer.at("/results/5/rows/0/key").asText()).isEqualTo("a");
        assertThat(answer.at("/results/2/value/n").asInt()).isEqualTo(1);
        assertThat(answer.at("/results/3/missing/0").asText()).isEqualTo("missing");
        // A write without "required" that is not applied does not fail the call.
        assertThat(answer.at("/results/4/reason").asText()).isEqualTo("absent");

        Path file = Files.writeString(dir.resolve("call.json"), "[{\"op\":\"put\",\"ns\":\"batch\",\"key\":\"b\",\"value\":2,\"forever\":true},"
                + "{\"op\":\"check\",\"ns\":\"batch\",\"key\":\"a\",\"expect\":999999,\"required\":true}]");
        CliRunner.Result aborted = cli.run("batch", file.toString()).exits(5);
        assertThat(aborted.err()).isEqualTo("queen-kv: batch aborted, nothing written: op at index 1 (check batch/a) not applied (version)\n");
        assertThat(aborted.lines().get(1)).matches("1 +check +a +aborted: version .*");
        cli.run("get", "batch", "b").exits(1);

        Path absent = Files.writeString(dir.resolve("absent.json"), "[{\"op\":\"delete\",\"ns\":\"batch\",\"key\":\"never\",\"required\":true}]");
        assertThat(cli.run("-o", "json", "batch", absent.toString()).exits(1).json().get("kvReason").asText()).isEqualTo("absent");

        List<String> table = cli.runWithStdin("[{\"op\":\"get\",\"ns\":\"batch\",\"key\":\"a\"},{\"op\":\"get\",\"ns\":\"batch\",\"key\":\"nope\"}]", "batch").exits(0).lines();
        assertThat(table.get(0)).matches("INDEX +OP +KEY +RESULT +VERSION +VALUE");
        assertThat(table.get(1)).matches("0 +get +a +found +\\d+ +\\{\"n\":1}");
        assertThat(table.get(2)).matches("1 +get +nope +absent");
    }

    @Test
    void aRetriedBatchWithItsIdempotencyKeyAppliesOnce() {
        String incr = "[{\"op\":\"incr\",\"ns\":\"idem\",\"key\":\"c\",\"delta\":1,\"forever\":true}]";
        cli.runWithStdin(incr, "batch", "--idempotency-key", "nightly-42").exits(0);
        JsonNode again = cli.runWithStdin(incr, "-o", "json", "batch", "--idempotency-key", "nightly-42").exits(0).json();
        assertThat(again.at("/results/0/value").asLong()).isEqualTo(1);
    }

    @Test
    void refusalsExit3WithTheReason() {
        assertThat(cli.run("put", "Bad NS", "k", "1", "--forever").exits(3).err())
                .startsWith("queen-kv: refused (400 kv_bad_namespace): op at index 0:");
        assertThat(cli.runWithStdin("[{\"op\":\"put\",\"ns\":\"r\",\"key\":\"k\",\"value\":1,\"forever\":true},"
                + "{\"op\":\"delete\",\"ns\":\"r\",\"key\":\"k\"}]", "batch").exits(3).err()).contains("kv_duplicate_key_in_call");
        assertThat(cli.run("member", "remove", "n9").exits(3).err()).startsWith("queen-kv: refused (404 not_found)");
        assertThat(cli.run("settings", "set", "colour=1").exits(3).err()).contains("kv_bad_request", "unknown setting 'colour'");
    }

    @Test
    void endpointsComeFromTheFlagOverTheEnvironmentAndFailOver() {
        String dead = CliUsageTest.closedEndpoint();
        CliRunner viaEnv = CliRunner.against(dead, nodes.get(1).baseUrl);
        viaEnv.run("put", "failover", "k", "1", "--forever").exits(0);
        viaEnv.run("cluster", "status").exits(0);
        // The flag wins over QUEEN_KV_ENDPOINTS.
        viaEnv.run("--endpoints", dead, "get", "failover", "k").exits(4);
        CliRunner.against(dead).run("--endpoints", nodes.get(2).baseUrl, "get", "failover", "k").exits(0);
    }

    @Test
    void clusterStatusShowsTheMembersAndTheLeader() {
        JsonNode status = cli.run("-o", "json", "cluster", "status").exits(0).json();
        assertThat(status.get("members")).hasSize(3);
        String leader = status.get("leaderId").asText();
        assertThat(leader).matches("n[123]");

        List<String> table = cli.run("cluster", "status").exits(0).lines();
        assertThat(table.get(0)).matches("node +n\\d at http://127\\.0\\.0\\.1:\\d+");
        assertThat(table).anyMatch(l -> l.matches("leader +" + leader)).anyMatch(l -> l.matches("membership +member"))
                .anyMatch(l -> l.matches("ID +ROLE +RAFT_ADDRESS +HTTP_ADDRESS"))
                .anyMatch(l -> l.matches(leader + " +leader +127\\.0\\.0\\.1:\\d+ +127\\.0\\.0\\.1:\\d+"));
    }

    @Test
    void leadershipMovesToTheMemberNamed() {
        String leader = cli.run("-o", "json", "cluster", "status").exits(0).json().get("leaderId").asText();
        String target = List.of("n1", "n2", "n3").stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
        JsonNode moved = cli.run("-o", "json", "leader", "transfer", target).exits(0).json();
        assertThat(moved.get("leaderId").asText()).isEqualTo(target);
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(cli.run("-o", "json", "cluster", "status").exits(0).json().get("leaderId").asText()).isEqualTo(target));
        assertThat(cli.run("leader", "transfer").exits(0).out()).matches("leader +n[123]\\n");
    }

    @Test
    void settingsAreReadAndCommitted() {
        JsonNode before = cli.run("-o", "json", "settings", "get").exits(0).json();
        long valueBytes = before.at("/settings/maxValueBytes").asLong();
        try {
            JsonNode changed = cli.run("-o", "json", "settings", "set", "maxValueBytes=16").exits(0).json();
            assertThat(changed.at("/settings/maxValueBytes").asLong()).isEqualTo(16);
            assertThat(changed.get("settingsIndex").asLong()).isGreaterThan(before.get("settingsIndex").asLong());
            assertThat(cli.run("settings", "get").exits(0).lines()).contains("maxValueBytes   16");
            assertThat(cli.run("put", "settings", "big", "\"more than sixteen bytes\"", "--forever").exits(3).err())
                    .contains("kv_value_too_large");
        } finally {
            cli.run("settings", "set", "maxValueBytes=" + valueBytes).exits(0);
        }
        assertThat(cli.run("-o", "json", "settings", "get").exits(0).json().get("settings")).isEqualTo(before.get("settings"));
    }

    @Test
    void aMemberIsAddedAndRemoved() throws IOException {
        JsonNode status = cli.run("-o", "json", "cluster", "status").exits(0).json();
        StringBuilder peers = new StringBuilder();
        for (JsonNode m : status.get("members")) {
            if (peers.length() > 0) peers.append(',');
            peers.append(m.get("id").asText()).append('=').append(m.get("raftAddress").asText()).append(':')
                    .append(m.get("httpAddress").asText().replaceAll(".*:", ""));
        }
        int raftPort = LocalNode.freePort(), httpPort = LocalNode.freePort();
        Map<String, String> env = new HashMap<>();
        env.put("QUEEN_KV_NODE_ID", "n4");
        env.put("QUEEN_KV_CLUSTER_ID", status.get("clusterId").asText());
        env.put("QUEEN_KV_PEERS", peers.toString());
        env.put("QUEEN_KV_RAFT_PORT", Integer.toString(raftPort));
        env.put("QUEEN_KV_HTTP_PORT", Integer.toString(httpPort));
        env.put("QUEEN_KV_DATA_DIR", dir.resolve("n4").toString());
        CliRunner n4 = CliRunner.against("http://127.0.0.1:" + httpPort);
        try (Node node = new Node(NodeConfig.fromEnv(env))) {
            assertThat(n4.run("-o", "json", "cluster", "status").exits(0).json().get("members")).as("n4 before it is added").isEmpty();

            JsonNode added = cli.run("-o", "json", "member", "add", "n4", "127.0.0.1:" + raftPort, "127.0.0.1:" + httpPort).exits(0).json();
            assertThat(added.get("members").findValuesAsText("id")).containsExactlyInAnyOrder("n1", "n2", "n3", "n4");
            Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                JsonNode seen = n4.run("-o", "json", "cluster", "status").exits(0).json();
                assertThat(seen.get("membership").asText()).isEqualTo("member");
                assertThat(seen.get("members")).hasSize(4);
            });

            List<String> removed = cli.run("member", "remove", "n4").exits(0).lines();
            assertThat(removed.get(0)).matches("ID +RAFT_ADDRESS +HTTP_ADDRESS");
            assertThat(removed).hasSize(4).noneMatch(l -> l.startsWith("n4"));
        }
        assertThat(cli.run("-o", "json", "cluster", "status").exits(0).json().get("members")).hasSize(3);
    }

    @Test
    void aBackupIsStreamedCheckedAndPassesTheRestoreCheck() throws IOException {
        for (int i = 0; i < 20; i++) cli.run("put", "backup", "k" + i, Integer.toString(i), "--forever").exits(0);
        Path file = dir.resolve("kv.backup");
        JsonNode backup = cli.run("-o", "json", "backup", file.toString()).exits(0).json();
        assertThat(file).exists();
        assertThat(backup.get("keys").asLong()).isGreaterThanOrEqualTo(20);
        assertThat(backup.get("bytes").asLong()).isEqualTo(Files.size(file));
        assertThat(backup.get("logIndex").asLong()).isPositive();
        assertThat(backup.get("format").asInt()).isEqualTo(1);
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".partial"));
        }
        assertThat(cli.run("backup", file.toString()).exits(6).err()).contains("exists");

        // The node reads the file as its own snapshot: same key count.
        long keys;
        try (var in = Files.newInputStream(file)) {
            keys = io.queenkv.node.kv.SnapshotCodec.read(in, nodes.get(0).node.replicated().local(e -> e.settings())).keyCount();
        }
        assertThat(backup.get("keys").asLong()).isEqualTo(keys);

        JsonNode check = cli.run("-o", "json", "restore", file.toString()).exits(0).json();
        assertThat(check.get("keys").asLong()).isEqualTo(keys);
        assertThat(check.get("crc32c").asText()).isEqualTo(backup.get("crc32c").asText());
        assertThat(check.get("restoreCommand").asText()).isEqualTo("QUEEN_KV_RESTORE_FROM=" + file.toAbsolutePath() + " java -jar node/target/queen-kv-node.jar");
        assertThat(cli.run("restore", file.toString()).exits(0).out()).contains("QUEEN_KV_RESTORE_FROM=" + file.toAbsolutePath(), "crc32c");

        byte[] damaged = Files.readAllBytes(file);
        damaged[damaged.length / 2] ^= 0x10;
        Path bad = Files.write(dir.resolve("damaged.backup"), damaged);
        assertThat(cli.run("restore", bad.toString()).exits(6).err()).contains("damaged: its CRC32C is");
        Path cut = Files.write(dir.resolve("cut.backup"), java.util.Arrays.copyOf(damaged, 20));
        assertThat(cli.run("restore", cut.toString()).exits(6).err()).contains("damaged");
    }
}
