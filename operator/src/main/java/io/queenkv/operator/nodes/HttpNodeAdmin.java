package io.queenkv.operator.nodes;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import javax.net.ssl.SSLException;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.queenkv.operator.crd.AuthSpec;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.SecretKeyRef;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Peers;
import io.queenkv.operator.model.TlsModel;
import io.queenkv.operator.tls.ClusterTrust;

/**
 * {@link NodeAdmin} over HTTP with the JDK client. A node is reached at its pod's stable DNS name
 * ({@code <c>-<i>.<c>-peers.<ns>.svc:6632}) through an {@link AddressResolver} (the e2e harness maps
 * those names to loopback ports); when {@code spec.auth.adminTokenSecretRef} is set, every call carries
 * that Secret's token as a bearer token. With TLS on, calls go over HTTPS trusting only the cluster CA
 * ({@code ca.crt} of the TLS Secret) and checking that the certificate names the host called (the JDK
 * client's host name verification).
 */
public final class HttpNodeAdmin implements NodeAdmin {
    /** Where to send a node's HTTP calls. */
    @FunctionalInterface
    public interface AddressResolver {
        URI baseUri(Peers.NodeAddress node);

        /** {@code http://<pod DNS name>:6632}: what works inside the Kubernetes cluster. */
        static AddressResolver podDns() {
            return node -> URI.create(node.httpUrl());
        }
    }

    static final ObjectMapper MAPPER = JsonMapper.builder()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();
    private static final Duration TOKEN_CACHE = Duration.ofSeconds(30);

    private final KubernetesClient kubernetes;
    private final AddressResolver resolver;
    private final Supplier<HttpClient.Builder> builders;
    /**
     * Clients by the CA PEM they trust ({@link #PLAIN} for plain HTTP; a renewed CA gets a client of its
     * own). A client whose call failed other than by a timeout or a refused connection is replaced: a
     * client that broke inside (its connection pool, its selector) would otherwise fail every later call
     * to every node, and the operator would see no leader while the group serves.
     */
    private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();
    private static final String PLAIN = "";
    private final Map<String, CachedToken> caCerts = new ConcurrentHashMap<>();
    private final Duration readTimeout;
    private final Duration adminTimeout;
    private final Clock clock = Clock.systemUTC();
    private final Map<String, CachedToken> tokens = new ConcurrentHashMap<>();

    private record CachedToken(String token, Instant readAt) {}

    public HttpNodeAdmin(KubernetesClient kubernetes, AddressResolver resolver) {
        this(kubernetes, resolver, HttpClient::newBuilder, Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(60));
    }

    /**
     * @param readTimeout  for the cluster view and readiness (the operator polls these)
     * @param adminTimeout for the admin calls, which answer once the change has committed (adding a
     *                     member waits for the Raft configuration change)
     * @param clients      a fresh HTTP client builder (e.g. one with a proxy); the TLS context and timeouts are set here
     */
    public HttpNodeAdmin(KubernetesClient kubernetes, AddressResolver resolver, Supplier<HttpClient.Builder> clients,
                         Duration connectTimeout, Duration readTimeout, Duration adminTimeout) {
        this.kubernetes = kubernetes;
        this.resolver = resolver;
        this.readTimeout = readTimeout;
        this.adminTimeout = adminTimeout;
        this.builders = () -> clients.get().connectTimeout(connectTimeout).version(HttpClient.Version.HTTP_1_1);
    }

    @Override
    public ClusterView cluster(QueenKvCluster c, int ordinal) {
        return parse(send(c, ordinal, "GET", "/api/v1/cluster", null, readTimeout, true), ClusterView.class, c, ordinal);
    }

    @Override
    public boolean ready(QueenKvCluster c, int ordinal) {
        try {
            return call(c, ordinal, "GET", "/readyz", null, readTimeout).statusCode() == 200;
        } catch (NodeAdminException e) {
            return false;
        }
    }

    @Override
    public List<ClusterView.Member> addMember(QueenKvCluster c, int viaOrdinal, String id, String raftAddress, String httpAddress) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("id", id);
        body.put("raftAddress", raftAddress);
        body.put("httpAddress", httpAddress);
        return members(send(c, viaOrdinal, "POST", "/api/v1/admin/members", body, adminTimeout, true), c, viaOrdinal);
    }

    @Override
    public List<ClusterView.Member> removeMember(QueenKvCluster c, int viaOrdinal, String id) {
        return members(send(c, viaOrdinal, "DELETE", "/api/v1/admin/members/" + id, null, adminTimeout, true), c, viaOrdinal);
    }

    @Override
    public String transferLeadership(QueenKvCluster c, int viaOrdinal, String to) {
        Map<String, String> body = to == null ? Map.of() : Map.of("to", to);
        JsonNode answer = parse(send(c, viaOrdinal, "POST", "/api/v1/admin/leadership", body, adminTimeout, true), JsonNode.class, c, viaOrdinal);
        return answer.path("leaderId").isTextual() ? answer.path("leaderId").textValue() : null;
    }

    @Override
    public SettingsChange changeSettings(QueenKvCluster c, int viaOrdinal, KvSettings settings) {
        JsonNode answer = parse(send(c, viaOrdinal, "PUT", "/api/v1/admin/settings", settings, adminTimeout, true), JsonNode.class, c, viaOrdinal);
        try {
            return new SettingsChange(MAPPER.treeToValue(answer.path("settings"), KvSettings.class), answer.path("settingsIndex").asLong());
        } catch (IOException e) {
            throw new NodeAdminException(where(c, viaOrdinal) + ": unexpected settings answer: " + answer, 200, e);
        }
    }

    private List<ClusterView.Member> members(String json, QueenKvCluster c, int ordinal) {
        JsonNode answer = parse(json, JsonNode.class, c, ordinal);
        return MAPPER.convertValue(answer.path("members"),
                MAPPER.getTypeFactory().constructCollectionType(List.class, ClusterView.Member.class));
    }

    /** Sends a call and answers the body of a 2xx response; anything else throws. */
    private String send(QueenKvCluster c, int ordinal, String method, String path, Object body, Duration timeout, boolean expect2xx) {
        HttpResponse<String> response = call(c, ordinal, method, path, body, timeout);
        if (expect2xx && response.statusCode() / 100 != 2)
            throw new NodeAdminException(where(c, ordinal) + ": " + method + " " + path + " answered " + response.statusCode() + " "
                    + abbreviate(response.body()), response.statusCode());
        return response.body();
    }

    private HttpResponse<String> call(QueenKvCluster c, int ordinal, String method, String path, Object body, Duration timeout) {
        URI base = resolver.baseUri(Peers.node(c, ordinal));
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout).header("accept", "application/json");
        String token = adminToken(c);
        if (token != null) request.header("authorization", "Bearer " + token);
        try {
            if (body == null) request.method(method, HttpRequest.BodyPublishers.noBody());
            else request.header("content-type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body), StandardCharsets.UTF_8));
            String key = clientKey(c);
            HttpClient http = client(c, key);
            try {
                return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                if (!(e instanceof HttpTimeoutException || e instanceof ConnectException)) clients.remove(key, http);
                throw e;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NodeAdminException(where(c, ordinal) + ": interrupted", 0, e);
        } catch (IOException e) {
            throw new NodeAdminException(where(c, ordinal) + ": " + method + " " + path + " failed: " + describe(e), 0, e);
        }
    }

    /** What went wrong, in words for a status message (the JDK client's exceptions often carry no message). */
    static String describe(IOException e) {
        if (e instanceof HttpTimeoutException) return "no answer in time";
        if (e instanceof ConnectException) return "could not connect" + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")");
        if (e instanceof SSLException) return "TLS failed: " + e.getMessage();
        return e.getMessage() == null || e.getMessage().isBlank() ? "the connection failed" : e.getMessage();
    }

    private <T> T parse(String json, Class<T> type, QueenKvCluster c, int ordinal) {
        try {
            return MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new NodeAdminException(where(c, ordinal) + ": unexpected answer " + abbreviate(json), 200, e);
        }
    }

    /** {@link #PLAIN} without TLS; otherwise the cluster CA's PEM. */
    private String clientKey(QueenKvCluster c) {
        return TlsModel.enabled(Model.spec(c)) ? caPem(c) : PLAIN;
    }

    /** Plain HTTP without TLS; otherwise an HTTPS client trusting exactly the cluster's CA. */
    private HttpClient client(QueenKvCluster c, String key) {
        return clients.computeIfAbsent(key, pem -> {
            if (pem.equals(PLAIN)) return builders.get().build();
            try {
                return builders.get().sslContext(ClusterTrust.trusting(pem)).build();
            } catch (IllegalArgumentException e) {
                throw new NodeAdminException(Model.name(c) + ": " + TlsModel.CA_CERT_KEY + " of the TLS Secret: " + e.getMessage(), 0, e);
            }
        });
    }

    /** {@code ca.crt} of the cluster's TLS Secret (read again after {@link #TOKEN_CACHE}, so a new CA is picked up). */
    String caPem(QueenKvCluster c) {
        String secretName = TlsModel.secretName(c).orElseThrow();
        String cacheKey = Model.namespace(c) + "/" + secretName;
        CachedToken cached = caCerts.get(cacheKey);
        if (cached != null && cached.readAt().plus(TOKEN_CACHE).isAfter(clock.instant())) return cached.token();
        Secret secret = kubernetes.secrets().inNamespace(Model.namespace(c)).withName(secretName).get();
        String pem = TlsModel.text(secret, TlsModel.CA_CERT_KEY);
        if (pem == null || pem.isBlank())
            throw new NodeAdminException("TLS Secret " + secretName + " (key " + TlsModel.CA_CERT_KEY + ") not found in " + Model.namespace(c), 0);
        caCerts.put(cacheKey, new CachedToken(pem, clock.instant()));
        return pem;
    }

    /** The plain admin token from {@code spec.auth.adminTokenSecretRef}, or null when auth is off. */
    String adminToken(QueenKvCluster c) {
        AuthSpec auth = Model.spec(c).getAuth();
        if (auth == null || auth.getAdminTokenSecretRef() == null) return null;
        SecretKeyRef ref = auth.getAdminTokenSecretRef();
        String key = ref.keyOr(AuthSpec.DEFAULT_ADMIN_TOKEN_KEY);
        String cacheKey = Model.namespace(c) + "/" + ref.getName() + "/" + key;
        CachedToken cached = tokens.get(cacheKey);
        if (cached != null && cached.readAt().plus(TOKEN_CACHE).isAfter(clock.instant())) return cached.token();
        Secret secret = kubernetes.secrets().inNamespace(Model.namespace(c)).withName(ref.getName()).get();
        String token = null;
        if (secret != null && secret.getData() != null && secret.getData().get(key) != null)
            token = new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8).trim();
        else if (secret != null && secret.getStringData() != null)
            token = secret.getStringData().get(key);
        if (token == null)
            throw new NodeAdminException("admin token Secret " + ref.getName() + " (key " + key + ") not found in " + Model.namespace(c), 0);
        tokens.put(cacheKey, new CachedToken(token, clock.instant()));
        return token;
    }

    private static String where(QueenKvCluster c, int ordinal) {
        return Model.name(c) + "/n" + ordinal;
    }

    private static String abbreviate(String s) {
        if (s == null) return "";
        return s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }
}
