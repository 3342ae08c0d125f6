package io.queenkv.operator.model;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.queenkv.operator.crd.IssuerRef;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;
import io.queenkv.operator.crd.TlsMode;
import io.queenkv.operator.crd.TlsSpec;
import io.queenkv.operator.tls.CertificateAuthority;
import io.queenkv.operator.tls.IssuedCertificate;
import io.queenkv.operator.tls.Pem;

/**
 * The nodes' TLS material (API.md §5). One node certificate serves every member: its names are the
 * wildcard of the peer Service ({@code *.<c>-peers.<ns>.svc}, with and without {@code .cluster.local}),
 * the client Service's names and localhost (for port-forwards), so scaling never needs a new one.
 *
 * <ul>
 *   <li><b>Operator</b>: {@code <c>-ca} holds the cluster CA (certificate and key; never mounted),
 *       {@code <c>-tls} the CA certificate and the node certificate and key. Both are created once;
 *       the node certificate is issued again from the same CA when less than a third of its lifetime
 *       is left, when it no longer names every address, or when the CA changed.</li>
 *   <li><b>CertManager</b>: a {@code cert-manager.io/v1} Certificate with the same names writes
 *       {@code <c>-tls}; cert-manager renews it.</li>
 *   <li><b>Secret</b>: the user's Secret, as it is.</li>
 * </ul>
 */
public final class TlsModel {
    public static final String CA_CERT_KEY = "ca.crt";
    public static final String CA_KEY_KEY = "ca.key";
    public static final String CERT_KEY = "tls.crt";
    public static final String KEY_KEY = "tls.key";

    public static final Duration CA_VALIDITY = Duration.ofDays(3650);
    public static final Duration NODE_CERT_VALIDITY = Duration.ofDays(365);
    /** Renew once less than this share of the node certificate's lifetime is left. */
    public static final double RENEW_WHEN_LEFT = 1.0 / 3;

    public static final String CERT_MANAGER_API_VERSION = "cert-manager.io/v1";
    public static final String CERT_MANAGER_GROUP = "cert-manager.io";
    public static final String CERTIFICATE_KIND = "Certificate";

    private TlsModel() {}

    public static TlsMode mode(QueenKvClusterSpec spec) {
        return spec.getTls() == null ? TlsMode.Operator : spec.getTls().effectiveMode();
    }

    public static boolean enabled(QueenKvClusterSpec spec) {
        return mode(spec) != TlsMode.Disabled;
    }

    /** The Secret the pods mount and the operator's admin client reads {@code ca.crt} from; empty without TLS. */
    public static Optional<String> secretName(QueenKvCluster c) {
        TlsSpec tls = Model.spec(c).getTls();
        return switch (mode(Model.spec(c))) {
            case Operator, CertManager -> Optional.of(Names.tlsSecret(Model.name(c)));
            case Secret -> Optional.of(tls.getSecretRef().getName());
            case Disabled -> Optional.empty();
        };
    }

    /** Every name the node certificate carries (DNS names, then IP addresses). */
    public static List<String> certificateNames(QueenKvCluster c) {
        String name = Model.name(c);
        String ns = Model.namespace(c);
        List<String> names = new ArrayList<>();
        String peers = "*." + Names.peersService(name) + "." + ns + ".svc";
        names.add(peers);
        names.add(peers + ".cluster.local");
        String client = Names.clientService(name) + "." + ns;
        names.add(Names.clientService(name));
        names.add(client);
        names.add(client + ".svc");
        names.add(client + ".svc.cluster.local");
        names.add("localhost");
        names.add("127.0.0.1");
        return names;
    }

    static List<String> dnsNames(QueenKvCluster c) {
        return certificateNames(c).stream().filter(n -> !isIp(n)).toList();
    }

    static List<String> ipAddresses(QueenKvCluster c) {
        return certificateNames(c).stream().filter(TlsModel::isIp).toList();
    }

    private static boolean isIp(String n) {
        return n.matches("[0-9.]+");
    }

    // ---- mode Operator ---------------------------------------------------------------------------------

    /** A new cluster CA for {@code c}. */
    public static CertificateAuthority newCa(QueenKvCluster c, Instant now, SecureRandom random) {
        return CertificateAuthority.create(commonName(c, " CA"), now, CA_VALIDITY, random);
    }

    /** {@code queen-kv <ns>/<name><suffix>}, cut to the 64 characters X.509 allows a common name. */
    static String commonName(QueenKvCluster c, String suffix) {
        String cn = "queen-kv " + Model.namespace(c) + "/" + Model.name(c) + suffix;
        return cn.length() <= 64 ? cn : cn.substring(0, 64);
    }

    /** {@code <c>-ca}: the CA certificate and key. */
    public static Secret caSecret(QueenKvCluster c, CertificateAuthority ca) {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(CA_CERT_KEY, base64(ca.certificatePem()));
        data.put(CA_KEY_KEY, base64(ca.keyPem()));
        return new SecretBuilder().withMetadata(Model.metadata(c, Names.caSecret(Model.name(c)))).withType("Opaque").withData(data).build();
    }

    /** The CA in a {@link #caSecret}, or empty when it holds none. */
    public static Optional<CertificateAuthority> ca(Secret caSecret) {
        String cert = text(caSecret, CA_CERT_KEY);
        String key = text(caSecret, CA_KEY_KEY);
        if (cert == null || key == null) return Optional.empty();
        return Optional.of(CertificateAuthority.fromPem(cert, key));
    }

    /** A node certificate for every member of {@code c}, from {@code ca}. */
    public static IssuedCertificate issueNodeCertificate(QueenKvCluster c, CertificateAuthority ca, Instant now, SecureRandom random) {
        return ca.issue(commonName(c, " node"), certificateNames(c), now, NODE_CERT_VALIDITY, random);
    }

    /** {@code <c>-tls} (type kubernetes.io/tls): what the nodes mount. */
    public static Secret nodeSecret(QueenKvCluster c, CertificateAuthority ca, IssuedCertificate node) {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(CA_CERT_KEY, base64(ca.certificatePem()));
        data.put(CERT_KEY, base64(node.certificatePem()));
        data.put(KEY_KEY, base64(node.keyPem()));
        return new SecretBuilder().withMetadata(Model.metadata(c, Names.tlsSecret(Model.name(c)))).withType("kubernetes.io/tls")
                .withData(data).build();
    }

    /**
     * Why the node Secret must be written again (empty: it is fine): missing, not from {@code ca}, lacking
     * a name, or less than {@link #RENEW_WHEN_LEFT} of its lifetime left at {@code now}.
     */
    public static Optional<String> reissueReason(QueenKvCluster c, Secret nodeSecret, CertificateAuthority ca, Instant now) {
        if (nodeSecret == null) return Optional.of("no node certificate yet");
        String certPem = text(nodeSecret, CERT_KEY);
        if (certPem == null || text(nodeSecret, KEY_KEY) == null) return Optional.of("the Secret lacks " + CERT_KEY + " or " + KEY_KEY);
        if (!ca.certificatePem().equals(text(nodeSecret, CA_CERT_KEY))) return Optional.of("its " + CA_CERT_KEY + " is not the cluster CA");
        List<X509Certificate> certs;
        try {
            certs = Pem.certificates(certPem);
        } catch (RuntimeException e) {
            return Optional.of("unreadable node certificate: " + e.getMessage());
        }
        if (certs.isEmpty()) return Optional.of("no node certificate in " + CERT_KEY);
        X509Certificate cert = certs.get(0);
        if (!ca.signed(cert)) return Optional.of("the node certificate is not signed by the cluster CA");
        List<String> missing = new ArrayList<>(certificateNames(c));
        missing.removeAll(subjectAlternativeNames(cert));
        if (!missing.isEmpty()) return Optional.of("the node certificate lacks " + missing);
        if (IssuedCertificate.lessThanLeft(cert, RENEW_WHEN_LEFT, now))
            return Optional.of("the node certificate expires at " + cert.getNotAfter().toInstant() + ": renewing");
        return Optional.empty();
    }

    /** The DNS names and IP addresses a certificate is for. */
    public static List<String> subjectAlternativeNames(X509Certificate cert) {
        try {
            Collection<List<?>> sans = cert.getSubjectAlternativeNames();
            if (sans == null) return List.of();
            return sans.stream().filter(s -> s.size() == 2 && s.get(1) instanceof String).map(s -> (String) s.get(1)).toList();
        } catch (CertificateParsingException e) {
            return List.of();
        }
    }

    // ---- mode CertManager ------------------------------------------------------------------------------

    /**
     * The cert-manager Certificate writing {@code <c>-tls}: server and client auth, PKCS#8 RSA key (what the
     * node reads), a new key at every renewal. cert-manager renews it a third of its lifetime before expiry.
     * The issuer must put {@code ca.crt} in the Secret (a CA, Vault or self-signed issuer does).
     */
    public static GenericKubernetesResource certificate(QueenKvCluster c) {
        IssuerRef issuer = Model.spec(c).getTls().getIssuerRef();
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("secretName", Names.tlsSecret(Model.name(c)));
        spec.put("secretTemplate", Map.of("labels", Labels.of(Model.name(c))));
        // No commonName: the names are in dnsNames, and a CN is limited to 64 characters.
        spec.put("dnsNames", dnsNames(c));
        spec.put("ipAddresses", ipAddresses(c));
        spec.put("duration", hours(NODE_CERT_VALIDITY));
        spec.put("renewBefore", hours(Duration.ofMillis((long) (NODE_CERT_VALIDITY.toMillis() * RENEW_WHEN_LEFT))));
        spec.put("usages", List.of("server auth", "client auth", "digital signature", "key encipherment"));
        Map<String, Object> key = new LinkedHashMap<>();
        key.put("algorithm", "RSA");
        key.put("size", 2048);
        key.put("encoding", "PKCS8");
        key.put("rotationPolicy", "Always");
        spec.put("privateKey", key);
        Map<String, Object> ref = new LinkedHashMap<>();
        ref.put("name", issuer.getName());
        ref.put("kind", issuer.kindOrDefault().name());
        ref.put("group", CERT_MANAGER_GROUP);
        spec.put("issuerRef", ref);
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(CERT_MANAGER_API_VERSION)
                .withKind(CERTIFICATE_KIND)
                .withMetadata(Model.metadata(c, Names.certificate(Model.name(c))))
                .withAdditionalProperties(Map.of("spec", spec))
                .build();
    }

    private static String hours(Duration d) {
        return d.toHours() + "h";
    }

    // ---- Secrets ---------------------------------------------------------------------------------------

    /** A Secret key's value as text (from {@code data}, or {@code stringData} as the mock API server may leave it). */
    public static String text(Secret s, String key) {
        if (s == null) return null;
        if (s.getData() != null && s.getData().get(key) != null)
            return new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
        if (s.getStringData() != null) return s.getStringData().get(key);
        return null;
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
