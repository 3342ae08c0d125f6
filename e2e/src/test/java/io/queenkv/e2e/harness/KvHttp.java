package io.queenkv.e2e.harness;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A tiny HTTP client for the tests (JDK {@link HttpClient}, Jackson). It never throws for what a
 * fault can cause: a connection failure, a timeout or a 503 comes back as a {@link Reply} whose
 * {@link Reply#unknown()} is true — after such a reply a write may or may not have taken effect
 * (API.md §1 "Unavailable"). Only programming errors (bad JSON given by the test) throw.
 *
 * <p>Ops are built with the static {@code op*} methods and sent with {@link #batch}; the one-op
 * helpers ({@link #put}, {@link #get}, {@link #cas}, {@link #incr}, {@link #putIfAbsent}) send a
 * batch of one op and keep the whole reply, so {@code reply.result(0)} is that op's element.
 */
public final class KvHttp {
    public static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** https URLs: the CAs of the harness's TLS clusters, before and after a CA rotation (and nothing else). */
    private static final javax.net.ssl.SSLContext HARNESS_TRUST =
            TestCertificates.sslContext(null, TestCertificates.CLUSTER_CA, TestCertificates.NEXT_CLUSTER_CA);

    private final HttpClient client;
    private final Duration timeout;

    public KvHttp() {
        this(DEFAULT_TIMEOUT);
    }

    /** @param timeout the per-request timeout; past it the reply is {@link Reply.Kind#TIMEOUT}. */
    public KvHttp(Duration timeout) {
        this.timeout = timeout;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .sslContext(HARNESS_TRUST)
                .build();
    }

    public KvHttp withTimeout(Duration newTimeout) {
        return new KvHttp(newTimeout);
    }

    public Duration timeout() {
        return timeout;
    }

    /** One HTTP exchange's outcome. */
    public record Reply(Kind kind, int status, JsonNode body, Map<String, java.util.List<String>> headers, String detail) {
        public enum Kind {
            /** The node answered (any status except 503). */
            ANSWERED,
            /** The node answered 503: unavailable, a write's outcome is unknown. */
            UNAVAILABLE,
            /** No answer within the per-request timeout. */
            TIMEOUT,
            /** Could not connect, or the connection broke before an answer. */
            CONNECTION_FAILED
        }

        /** True when the outcome is unknown: a write may or may not have been applied. */
        public boolean unknown() {
            return kind != Kind.ANSWERED;
        }

        /** HTTP 200 (for a batch this includes a {@code required} abort, which is {"ok":false,…}). */
        public boolean ok() {
            return kind == Kind.ANSWERED && status == 200;
        }

        /** The i-th element of {@code results} of a batch answer. */
        public JsonNode result(int i) {
            if (!ok() || body == null || !body.has("results"))
                throw new IllegalStateException("not a batch answer: " + this);
            return body.get("results").get(i);
        }

        public String header(String name) {
            if (headers == null) return null;
            for (var e : headers.entrySet())
                if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) return e.getValue().get(0);
            return null;
        }

        @Override
        public String toString() {
            return kind == Kind.ANSWERED || kind == Kind.UNAVAILABLE
                    ? "Reply[" + status + " " + body + "]"
                    : "Reply[" + kind + ": " + detail + "]";
        }
    }

    // ---- sending ----------------------------------------------------------------------------

    /** {@code POST {url}/api/v1/kv} with the given body (an object or array) and extra headers. */
    public Reply batch(String url, JsonNode body, Map<String, String> headers) {
        return send("POST", url + "/api/v1/kv", body, headers);
    }

    public Reply batch(String url, JsonNode body) {
        return batch(url, body, Map.of());
    }

    /** A batch of the given ops: {@code {"operations":[…]}}. */
    public Reply call(String url, JsonNode... ops) {
        ArrayNode arr = F.arrayNode();
        for (JsonNode op : ops) arr.add(op);
        ObjectNode body = F.objectNode();
        body.set("operations", arr);
        return batch(url, body);
    }

    public Reply get(String url, String ns, String key) {
        return call(url, opGet(ns, key));
    }

    /** A {@code put} with {@code forever:true}. */
    public Reply put(String url, String ns, String key, JsonNode value) {
        return call(url, opPut(ns, key, value));
    }

    /** A {@code put} with {@code expect} (0 = must be absent) and {@code forever:true}. */
    public Reply cas(String url, String ns, String key, long expect, JsonNode value) {
        return call(url, opCas(ns, key, expect, value));
    }

    public Reply putIfAbsent(String url, String ns, String key, JsonNode value) {
        return call(url, opPutIfAbsent(ns, key, value));
    }

    public Reply incr(String url, String ns, String key, long delta) {
        return call(url, opIncr(ns, key, delta));
    }

    public Reply getJson(String url, String path) {
        return send("GET", url + path, null, Map.of());
    }

    /** {@code GET /api/v1/cluster}. */
    public Reply cluster(String url) {
        return getJson(url, "/api/v1/cluster");
    }

    /** Any method and path, for the admin and operations routes; {@code body} may be null. */
    public Reply send(String method, String fullUrl, JsonNode body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(fullUrl)).timeout(timeout);
        headers.forEach(b::header);
        if (body != null) {
            b.header("content-type", "application/json");
            b.method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> resp;
        try {
            resp = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            return new Reply(Reply.Kind.TIMEOUT, 0, null, Map.of(), e.toString());
        } catch (IOException e) {
            return new Reply(Reply.Kind.CONNECTION_FAILED, 0, null, Map.of(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(Reply.Kind.CONNECTION_FAILED, 0, null, Map.of(), "interrupted");
        }
        JsonNode parsed;
        try {
            String text = resp.body();
            parsed = text == null || text.isBlank() ? NullNode.getInstance() : JSON.readTree(text);
        } catch (IOException e) {
            // Not JSON (e.g. /metrics): keep the text.
            parsed = F.textNode(resp.body());
        }
        Reply.Kind kind = resp.statusCode() == 503 ? Reply.Kind.UNAVAILABLE : Reply.Kind.ANSWERED;
        return new Reply(kind, resp.statusCode(), parsed, resp.headers().map(), null);
    }

    // ---- admin API (paths chosen by the node; see README) ---------------------------------------

    /** {@code PUT /api/v1/admin/settings} with any subset of the settings. */
    public Reply adminSettings(String url, Map<String, ?> settings) {
        return send("PUT", url + "/api/v1/admin/settings", JSON.valueToTree(settings), Map.of());
    }

    /** {@code POST /api/v1/admin/members}. */
    public Reply adminAddMember(String url, String id, String raftAddress, String httpAddress) {
        ObjectNode body = F.objectNode().put("id", id).put("raftAddress", raftAddress).put("httpAddress", httpAddress);
        return send("POST", url + "/api/v1/admin/members", body, Map.of());
    }

    /** {@code DELETE /api/v1/admin/members/{id}}. */
    public Reply adminRemoveMember(String url, String id) {
        return send("DELETE", url + "/api/v1/admin/members/" + id, null, Map.of());
    }

    /** {@code POST /api/v1/admin/leadership}; {@code to} may be null (any other member). */
    public Reply adminTransferLeadership(String url, String to) {
        ObjectNode body = F.objectNode();
        if (to != null) body.put("to", to);
        return send("POST", url + "/api/v1/admin/leadership", body, Map.of());
    }

    /** {@code POST /api/v1/admin/snapshot}. */
    public Reply adminSnapshot(String url) {
        return send("POST", url + "/api/v1/admin/snapshot", F.objectNode(), Map.of());
    }

    // ---- op builders (API.md §1) --------------------------------------------------------------

    public static ObjectNode opGet(String ns, String key) {
        return F.objectNode().put("op", "get").put("ns", ns).put("key", key);
    }

    public static ObjectNode opPut(String ns, String key, JsonNode value) {
        ObjectNode op = F.objectNode().put("op", "put").put("ns", ns).put("key", key);
        op.set("value", value);
        return op.put("forever", true);
    }

    public static ObjectNode opPut(String ns, String key, JsonNode value, long ttlSeconds) {
        ObjectNode op = F.objectNode().put("op", "put").put("ns", ns).put("key", key);
        op.set("value", value);
        return op.put("ttlSeconds", ttlSeconds);
    }

    public static ObjectNode opCas(String ns, String key, long expect, JsonNode value) {
        return opPut(ns, key, value).put("expect", expect);
    }

    public static ObjectNode opPutIfAbsent(String ns, String key, JsonNode value) {
        ObjectNode op = F.objectNode().put("op", "putIfAbsent").put("ns", ns).put("key", key);
        op.set("value", value);
        return op.put("forever", true);
    }

    public static ObjectNode opDelete(String ns, String key) {
        return F.objectNode().put("op", "delete").put("ns", ns).put("key", key);
    }

    public static ObjectNode opIncr(String ns, String key, long delta) {
        return F.objectNode().put("op", "incr").put("ns", ns).put("key", key).put("delta", delta).put("forever", true);
    }

    /** A JSON value from Java: {@code KvHttp.value("x")}, {@code KvHttp.value(Map.of(…))}. */
    public static JsonNode value(Object o) {
        return JSON.valueToTree(o);
    }
}
