package io.queenkv.e2e.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.client.BatchResult;
import io.queenkv.client.GetResult;
import io.queenkv.client.Lifetime;
import io.queenkv.client.Op;
import io.queenkv.client.QueenKv;
import io.queenkv.client.WriteResult;
import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * The README's Java quickstart, compiled and run against a node. The code between the README
 * markers below must stay identical to the README's ```java block (apart from the node's URL);
 * {@link #theReadmeShowsThisCode} checks that.
 */
class ReadmeExampleTest {
    private static final String README_URL = "\"http://localhost:6632\"";

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();

    @Test
    void theQuickstartRuns() throws Exception {
        try (NodeProcessCluster cluster = logs.watch(new NodeProcessCluster(1)).start()) {
            String url = cluster.url("n1");
            CompletableFuture<?> async = quickstart(url);
            async.get(20, TimeUnit.SECONDS);

            try (QueenKv check = QueenKv.connect(url)) {
                assertThat(check.get("orders", "9137").value().get("status").asText()).isEqualTo("shipped");
                assertThat(check.get("orders", "9138").found()).isTrue();
                assertThat(check.get("limits", "api:42:2026-11-30T10:15", Integer.class).value()).isEqualTo(1);
                assertThat(check.get("stats", "orders", Integer.class).value()).isEqualTo(1);
            }
        }
    }

    @SuppressWarnings("unused")
    private static CompletableFuture<?> quickstart(String url) {
        CompletableFuture<?> done;
        // README-BEGIN
        record Order(String status) {}

        try (QueenKv kv = QueenKv.connect(url)) { // or many nodes: connect(url1, url2, url3)
            // Every write declares its lifetime: Lifetime.ttl("30d"), ttl(Duration), until(Instant) or forever().
            WriteResult put = kv.put("orders", "9137", new Order("paid"), Lifetime.ttl("30d"));

            // Typed reads: found, value, version, expiresAt and updatedAt (Instants).
            GetResult<Order> order = kv.get("orders", "9137", Order.class);

            // Compare-and-swap on the version read; a lost race answers the winner's value and version.
            WriteResult cas = kv.put("orders", "9137", new Order("shipped"), Lifetime.ttl("30d"), order.version());
            if (!cas.applied()) System.out.println("lost to " + cas.value(Order.class) + " at v" + cas.version());

            // A bounded rate-limit counter; its TTL is set when it is created.
            WriteResult hits = kv.write(Op.incr("limits", "api:42:2026-11-30T10:15", 1, Lifetime.ttl("2m")).max(100));

            // Many ops in one atomic call; a required op that is not applied aborts the whole call.
            BatchResult result = kv.batch()
                    .put("orders", "9138", new Order("paid"), Lifetime.ttl("30d")).expect(0).required()
                    .incr("stats", "orders", 1, Lifetime.forever())
                    .execute();
            if (result instanceof BatchResult.PreconditionFailed failed)
                System.out.println("op " + failed.failedIndex() + " not applied: " + failed.kvReason());

            // Every key with a prefix, page by page; every call also has an async form on kv.async().
            kv.scan("orders", "91", Order.class).forEach(row -> System.out.println(row.key() + " v" + row.version()));
            CompletableFuture<GetResult<Order>> later = kv.async().get("orders", "9137", Order.class);
        // README-END
            done = later;
        }
        return done;
    }

    @Test
    void theReadmeShowsThisCode() throws IOException {
        Path e2e = Path.of(System.getProperty("queenkv.e2eDir", "."));
        String readme = Files.readString(e2e.resolve("../README.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf("```java\n");
        assertThat(start).as("a ```java block in README.md").isNotNegative();
        int end = readme.indexOf("```", start + 8);
        List<String> readmeLines = normalize(readme.substring(start + 8, end));

        String source = Files.readString(e2e.resolve("src/test/java/io/queenkv/e2e/sdk/ReadmeExampleTest.java"), StandardCharsets.UTF_8);
        String region = source.substring(source.indexOf("// README-BEGIN\n") + 16, source.indexOf("        // README-END"));
        List<String> testLines = normalize(region.replace("QueenKv.connect(url)", "QueenKv.connect(" + README_URL + ")") + "        }\n");
        assertThat(testLines).isEqualTo(readmeLines);
    }

    /** Lines without their common indentation, blank lines dropped. */
    private static List<String> normalize(String block) {
        List<String> lines = Arrays.stream(block.split("\n")).filter(l -> !l.isBlank()).toList();
        int indent = lines.stream().mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return lines.stream().map(l -> l.substring(indent).stripTrailing()).collect(Collectors.toList());
    }
}
