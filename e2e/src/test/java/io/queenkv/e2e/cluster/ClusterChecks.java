package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;

/** Waits and assertions shared by the cluster scenarios. Every wait is an Awaitility wait. */
final class ClusterChecks {
    private ClusterChecks() {}

    /** A plain client for checks, with a generous timeout (a node may be catching up). */
    static final KvHttp HTTP = new KvHttp(Duration.ofSeconds(5));

    /**
     * Waits until every given node reports, on {@code GET /api/v1/cluster}, the same applied index,
     * equal to its own commit index and to the leader's commit index: the nodes have converged.
     * Returns that index.
     */
    static long awaitConverged(NodeProcessCluster cluster, List<String> ids, Duration timeout) {
        AtomicReference<String> last = new AtomicReference<>("");
        AtomicReference<Long> index = new AtomicReference<>(-1L);
        try {
            await("nodes " + ids + " to converge on one applied index").atMost(timeout)
                    .pollInterval(Duration.ofMillis(250)).until(() -> {
                        Map<String, String> view = new LinkedHashMap<>();
                        long leaderCommit = -1;
                        List<Long> applied = new ArrayList<>();
                        boolean allAnswered = true;
                        for (String id : ids) {
                            KvHttp.Reply r = HTTP.cluster(cluster.url(id));
                            if (!r.ok()) {
                                view.put(id, r.toString());
                                allAnswered = false;
                                continue;
                            }
                            JsonNode b = r.body();
                            long a = b.path("appliedIndex").asLong(-1), c = b.path("commitIndex").asLong(-2);
                            view.put(id, b.path("role").asText() + " applied=" + a + " commit=" + c);
                            if ("leader".equals(b.path("role").asText())) leaderCommit = c;
                            if (a != c) allAnswered = false;
                            applied.add(a);
                        }
                        last.set(view.toString());
                        boolean same = allAnswered && leaderCommit > 0 && applied.stream().allMatch(a -> a.longValue() == applied.get(0).longValue())
                                && applied.get(0) == leaderCommit;
                        if (same) index.set(leaderCommit);
                        return same;
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("nodes did not converge within " + timeout + "; last view " + last.get() + "\n"
                    + cluster.describe() + "\n" + firstErrors(cluster, ids), e);
        }
        return index.get();
    }

    /** Reads {@code keys} of {@code ns} on one node with a linearizable {@code getMany}; key → its row (or absent). */
    static Map<String, JsonNode> readAll(String url, String ns, List<String> keys) {
        Map<String, JsonNode> rows = new LinkedHashMap<>();
        for (int from = 0; from < keys.size(); from += 500) {
            List<String> chunk = keys.subList(from, Math.min(keys.size(), from + 500));
            ObjectNode op = JsonNodeFactory.instance.objectNode().put("op", "getMany").put("ns", ns);
            ArrayNode arr = op.putArray("keys");
            chunk.forEach(arr::add);
            AtomicReference<KvHttp.Reply> reply = new AtomicReference<>();
            await("getMany of " + chunk.size() + " keys on " + url).atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(300)).until(() -> {
                        reply.set(HTTP.call(url, op));
                        return reply.get().ok();
                    });
            JsonNode result = reply.get().result(0);
            assertThat(result.path("truncated").asBoolean()).as("getMany truncated: %s", result).isFalse();
            for (JsonNode row : result.path("rows")) rows.put(row.path("key").asText(), row);
        }
        return rows;
    }

    /** Waits for a {@code GET} of {@code path} on a node to answer {@code status}. */
    static void awaitStatus(NodeProcessCluster cluster, String id, String path, int status, Duration timeout) {
        await(id + " " + path + " to answer " + status).atMost(timeout).pollInterval(Duration.ofMillis(200))
                .until(() -> HTTP.getJson(cluster.url(id), path).status() == status);
    }

    /** A metric's value from a node's {@code /metrics}; empty when the node does not report it. */
    static OptionalDouble metric(String url, String name) {
        try {
            String text = METRICS.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            return text.lines().filter(l -> l.startsWith(name + " ")).mapToDouble(l -> Double.parseDouble(l.split(" ")[1])).findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static final HttpClient METRICS = HttpClient.newHttpClient();

    static String log(NodeProcessCluster cluster, String id) {
        try {
            return Files.readString(cluster.node(id).logFile(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The first ERROR lines (with 4 lines of stack) of each node's log: the root cause is rarely in the tail. */
    static String firstErrors(NodeProcessCluster cluster, List<String> ids) {
        StringBuilder sb = new StringBuilder();
        for (String id : ids) {
            List<String> lines = log(cluster, id).lines().toList();
            int shown = 0;
            for (int i = 0; i < lines.size() && shown < 3; i++) {
                if (!lines.get(i).contains(" ERROR ")) continue;
                sb.append("  ").append(id).append(": ").append(String.join("\n      ", lines.subList(i, Math.min(lines.size(), i + 5)))).append('\n');
                shown++;
            }
        }
        return sb.length() == 0 ? "(no ERROR lines in the node logs)" : "first ERROR lines of the node logs:\n" + sb;
    }

    static long appliedIndex(NodeProcessCluster cluster, String id) {
        KvHttp.Reply r = HTTP.cluster(cluster.url(id));
        return r.ok() ? r.body().path("appliedIndex").asLong(-1) : -1;
    }

    static void say(String fmt, Object... args) {
        System.out.printf("[e2e] " + fmt + "%n", args);
    }
}
