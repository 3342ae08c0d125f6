package io.queenkv.operator.nodes;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;



import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.queenkv.client.QueenKvAdmin;
import io.queenkv.client.QueenKvException;
import io.queenkv.client.QueenKvRefusedException;
import io.queenkv.client.QueenKvUnavailableException;
import io.queenkv.operator.crd.AuthSpec;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.SecretKeyRef;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Peers;
import io.queenkv.operator.model.TlsModel;
import io.queenkv.operator.tls.ClusterTrust;

/**
 * {@link NodeAdmin} through the SDK's admin client ({@link QueenKvAdmin}), one node at a time. A node is reached at its pod's stable DNS name
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
        QueenKvAdmin.ClusterView v = call(c, ordinal, QueenKvAdmin::cluster);
        return new ClusterView(v.nodeId(), v.role(), v.term(), v.leaderId(), members(v.members()), v.commitIndex(), v.appliedIndex(),
                settings(v.settings()), v.settingsIndex(), v.readmitting());
    }

    @Override
    public boolean ready(QueenKvCluster c, int ordinal) {
        try {
            return call(c, ordinal, QueenKvAdmin::ready);
        } catch (NodeAdminException e) {
            return false;
        }
    }

    @Override
    public List<ClusterView.Member> addMember(QueenKvCluster c, int viaOrdinal, String id, String raftAddress, String httpAddress) {
        return members(call(c, viaOrdinal, node -> node.addMember(id, raftAddress, httpAddress)));
    }

    @Override
    public List<ClusterView.Member> removeMember(QueenKvCluster c, int viaOrdinal, String id) {
        return members(call(c, viaOrdinal, node -> node.removeMember(id)));
    }

    @Override
    public String transferLeadership(QueenKvCluster c, int viaOrdinal, String to) {
        return call(c, viaOrdinal, node -> node.transferLeadership(to));
    }

    @Override
    public SettingsChange changeSettings(QueenKvCluster c, int viaOrdinal, KvSettings settings) {
        QueenKvAdmin.SettingsChange change = call(c, viaOrdinal, node -> node.changeSettings(new QueenKvAdmin.Settings(settings.getMaxValueBytes(),
                settings.getMaxKeysPerCall(), settings.getMaxOpsPerCall(), settings.getMaxBodyBytes(), settings.getWriteRate(), settings.getReadRate())));
        return new SettingsChange(settings(change.settings()), change.settingsIndex());
    }

    private static List<ClusterView.Member> members(List<QueenKvAdmin.Member> members) {
        return members.stream().map(m -> new ClusterView.Member(m.id(), m.raftAddress(), m.httpAddress(), m.role())).toList();
    }

    private static KvSettings settings(QueenKvAdmin.Settings s) {
        if (s == null) return null;
        return new KvSettings().maxValueBytes(s.maxValueBytes()).maxKeysPerCall(s.maxKeysPerCall()).maxOpsPerCall(s.maxOpsPerCall())
                .maxBodyBytes(s.maxBodyBytes()).writeRate(s.writeRate()).readRate(s.readRate());
    }

    /**
     * Runs one call of the SDK's admin client against node {@code ordinal}: its address from the resolver, the cluster's
     * admin token, and the shared HTTP client that trusts the cluster's CA. What the SDK throws becomes a
     * {@link NodeAdminException} naming the node (status 0 when nothing answered).
     */
    private <T> T call(QueenKvCluster c, int ordinal, Function<QueenKvAdmin, T> call) {
        String key = clientKey(c);
        HttpClient http = client(c, key);
        QueenKvAdmin node = QueenKvAdmin.builder().endpoint(resolver.baseUri(Peers.node(c, ordinal))).token(adminToken(c)).httpClient(http)
                .readTimeout(readTimeout).changeTimeout(adminTimeout).build();
        try {
            return call.apply(node);
        } catch (QueenKvRefusedException e) {
            throw new NodeAdminException(where(c, ordinal) + ": " + e.getMessage(), e.status(), e);
        } catch (QueenKvUnavailableException e) {
            if (!e.reason().equals("timeout") && !(e.getCause() instanceof ConnectException)) clients.remove(key, http);
            throw new NodeAdminException(where(c, ordinal) + ": " + e.getMessage(), 0, e);
        } catch (QueenKvException e) {
            throw new NodeAdminException(where(c, ordinal) + ": " + e.getMessage(), 0, e);
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

}
