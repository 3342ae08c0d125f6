package io.queenkv.client;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The operations API of one node: its view of the group ({@code GET /api/v1/cluster}), whether it serves
 * ({@code /readyz}), and the changes an admin token may make through it: members, leadership, settings. The
 * Kubernetes operator drives every node through this class.
 *
 * <p>Unlike {@link QueenKv}, a call goes to this node only and is not retried: a change answers once it has
 * committed, and whether to repeat one that failed (another node, later) is the caller's decision. A refusal
 * (4xx, or a 5xx with the node's error body) throws {@link QueenKvRefusedException} with the node's status and
 * reason; no answer (a refused connection, a timeout, a TLS failure) throws {@link QueenKvUnavailableException}
 * whose reason is {@code connection_failed}, {@code timeout} or {@code tls_failed}.
 */
public final class QueenKvAdmin implements AutoCloseable {
    /** A member of the group as the node knows it; {@code role} is {@code leader}, {@code follower} or {@code learner}. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Member(String id, String raftAddress, String httpAddress, String role) {}

    /**
     * The cluster-wide limits in force (API.md §4); each null when a node did not say (an earlier version). In a
     * change, the fields to set; null ones stay as they are.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Settings(Integer maxValueBytes, Integer maxKeysPerCall, Integer maxOpsPerCall, Long maxBodyBytes,
                           Integer writeRate, Integer readRate) {}

    /**
     * The node's view of the group. {@code leaderId} is null while it knows no leader; {@code members} is empty on
     * a node started outside the group and not added yet; {@code readmitting} names members being re-admitted
     * after they lost their disk (on the leader).
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ClusterView(String nodeId, String role, long term, String leaderId, List<Member> members, long commitIndex,
                              long appliedIndex, Settings settings, long settingsIndex, List<String> readmitting) {
        public ClusterView {
            members = members == null ? List.of() : List.copyOf(members);
            readmitting = readmitting == null ? List.of() : List.copyOf(readmitting);
        }
    }

    /** The settings in force after a change, and the log index that put them in force. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SettingsChange(Settings settings, long settingsIndex) {}

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private static final Wire WIRE = new Wire(MAPPER);

    private final URI endpoint;
    private final HttpClient http;
    private final boolean ownsHttp;
    private final String token;
    private final Duration readTimeout;
    private final Duration changeTimeout;

    private QueenKvAdmin(URI endpoint, HttpClient http, boolean ownsHttp, String token, Duration readTimeout, Duration changeTimeout) {
        this.endpoint = endpoint;
        this.http = http;
        this.ownsHttp = ownsHttp;
        this.token = token;
        this.readTimeout = readTimeout;
        this.changeTimeout = changeTimeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    public URI endpoint() {
        return endpoint;
    }

    /** {@code GET /api/v1/cluster}: this node's view of the group. */
    public ClusterView cluster() {
        return parse("GET", "/api/v1/cluster", send("GET", "/api/v1/cluster", null, readTimeout), ClusterView.class);
    }

    /** {@code GET /readyz}: whether the node is a member that knows the leader and has applied what the leader committed. */
    public boolean ready() {
        try {
            return exchange("GET", "/readyz", null, readTimeout).statusCode() == 200;
        } catch (QueenKvUnavailableException e) {
            return false;
        }
    }

    /** Adds a member through this node (the leader, or it answers who is); answers the members once the change committed. */
    public List<Member> addMember(String id, String raftAddress, String httpAddress) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("id", id);
        body.put("raftAddress", raftAddress);
        body.put("httpAddress", httpAddress);
        return members("POST", "/api/v1/admin/members", body);
    }

    /** Removes a member through this node; answers the members once the change committed. */
    public List<Member> removeMember(String id) {
        return members("DELETE", "/api/v1/admin/members/" + id, null);
    }

    /** Hands leadership to {@code to}, or to the member best placed to take it when null; answers the new leader's id. */
    public String transferLeadership(String to) {
        String path = "/api/v1/admin/leadership";
        JsonNode answer = parse("POST", path, send("POST", path, to == null ? Map.of() : Map.of("to", to), changeTimeout), JsonNode.class);
        return answer.path("leaderId").isTextual() ? answer.path("leaderId").textValue() : null;
    }

    /** Commits new settings through the log (the fields set in {@code change}); answers those in force after it. */
    public SettingsChange changeSettings(Settings change) {
        String path = "/api/v1/admin/settings";
        return parse("PUT", path, send("PUT", path, Objects.requireNonNull(change, "change"), changeTimeout), SettingsChange.class);
    }

    @Override
    public void close() {
        if (ownsHttp) QueenKv.close(http);
    }

    private List<Member> members(String method, String path, Object body) {
        JsonNode answer = parse(method, path, send(method, path, body, changeTimeout), JsonNode.class);
        return MAPPER.convertValue(answer.path("members"), MAPPER.getTypeFactory().constructCollectionType(List.class, Member.class));
    }

    /** The body of a 2xx answer; anything else throws. */
    private String send(String method, String path, Object body, Duration timeout) {
        HttpResponse<String> response = exchange(method, path, body, timeout);
        if (response.statusCode() / 100 == 2) return response.body();
        throw refusal(method, path, response);
    }

    private HttpResponse<String> exchange(String method, String path, Object body, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint.resolve(path)).timeout(timeout).header("Accept", "application/json");
        if (token != null) request.header("Authorization", "Bearer " + token);
        try {
            if (body == null) request.method(method, HttpRequest.BodyPublishers.noBody());
            else request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body), StandardCharsets.UTF_8));
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueenKvException("interrupted while waiting for " + endpoint, e);
        } catch (IOException e) {
            String reason = e instanceof HttpTimeoutException ? "timeout" : e instanceof SSLException ? "tls_failed" : "connection_failed";
            throw new QueenKvUnavailableException(method + " " + path + " on " + endpoint + " failed: " + describe(e), reason, 1, null, e);
        }
    }

    /** The node's error body ({@link Wire#refusal}), the call named in its detail. */
    private QueenKvRefusedException refusal(String method, String path, HttpResponse<String> response) {
        QueenKvRefusedException r = WIRE.refusal(response.statusCode(), response.body().getBytes(StandardCharsets.UTF_8), null);
        String detail = abbreviate(r.detail());
        return new QueenKvRefusedException(r.status(), r.error(), r.reason(),
                method + " " + path + " on " + endpoint + (detail.isEmpty() ? "" : ": " + detail), null);
    }

    private <T> T parse(String method, String path, String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new QueenKvException(method + " " + path + " on " + endpoint + " answered what is not its JSON: " + abbreviate(json), e);
        }
    }

    /** What went wrong, in words (the JDK client's exceptions often carry no message). */
    private static String describe(IOException e) {
        if (e instanceof HttpTimeoutException) return "no answer in time";
        if (e instanceof ConnectException) return "could not connect" + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")");
        if (e instanceof SSLException) return "TLS failed: " + e.getMessage();
        return e.getMessage() == null || e.getMessage().isBlank() ? "the connection failed" : e.getMessage();
    }

    private static String abbreviate(String s) {
        if (s == null) return "";
        return s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }

    /** Settings of a {@link QueenKvAdmin}; {@link #endpoint} is required. */
    public static final class Builder {
        private URI endpoint;
        private String token;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration readTimeout = Duration.ofSeconds(5);
        private Duration changeTimeout = Duration.ofSeconds(60);
        private SSLContext sslContext;
        private HttpClient httpClient;

        private Builder() {}

        /** The node's base URL, e.g. {@code https://kv-0.kv-peers.prod.svc:6632}. */
        public Builder endpoint(String url) {
            return endpoint(URI.create(Objects.requireNonNull(url, "endpoint").trim()));
        }

        public Builder endpoint(URI url) {
            this.endpoint = QueenKv.Builder.checkedEndpoint(url);
            return this;
        }

        /** An admin token (any token reads the cluster view), sent as {@code Authorization: Bearer <token>}. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** How long to wait for a connection (default 2 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = QueenKv.Builder.positive(timeout, "connectTimeout");
            return this;
        }

        /** How long the cluster view and readiness may take (default 5 s). */
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = QueenKv.Builder.positive(timeout, "readTimeout");
            return this;
        }

        /** How long a change may take to commit (default 60 s: adding a member waits for the configuration change). */
        public Builder changeTimeout(Duration timeout) {
            this.changeTimeout = QueenKv.Builder.positive(timeout, "changeTimeout");
            return this;
        }

        /** The TLS context for an https endpoint (default: the JDK's trust store); the host name is always checked. */
        public Builder sslContext(SSLContext context) {
            this.sslContext = context;
            return this;
        }

        /** Use this HttpClient (its own timeouts and TLS settings apply; {@link #close()} leaves it open). */
        public Builder httpClient(HttpClient client) {
            this.httpClient = client;
            return this;
        }

        public QueenKvAdmin build() {
            if (endpoint == null) throw new IllegalArgumentException("an endpoint is needed");
            if (httpClient != null) return new QueenKvAdmin(endpoint, httpClient, false, token, readTimeout, changeTimeout);
            HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout)
                    .followRedirects(HttpClient.Redirect.NEVER);
            if (sslContext != null) b.sslContext(sslContext);
            return new QueenKvAdmin(endpoint, b.build(), true, token, readTimeout, changeTimeout);
        }
    }
}
