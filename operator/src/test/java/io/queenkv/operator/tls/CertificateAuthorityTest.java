package io.queenkv.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CertificateAuthorityTest {
    static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    static final SecureRandom RANDOM = new SecureRandom();
    static final List<String> NAMES = List.of("*.kv-peers.prod.svc", "*.kv-peers.prod.svc.cluster.local", "kv.prod.svc", "localhost", "127.0.0.1");
    static CertificateAuthority ca;
    static IssuedCertificate node;

    @BeforeAll
    static void issue() {
        ca = CertificateAuthority.create("test CA", NOW, Duration.ofDays(3650), RANDOM);
        node = ca.issue("kv node", NAMES, NOW, Duration.ofDays(365), RANDOM);
    }

    @Test
    void theCaIsACaOnlyForSigning() {
        X509Certificate cert = ca.certificate();
        assertThat(cert.getBasicConstraints()).as("path length of a CA").isEqualTo(0);
        assertThat(cert.getKeyUsage()[5]).as("keyCertSign").isTrue();
        assertThat(cert.getSubjectX500Principal()).isEqualTo(cert.getIssuerX500Principal());
        assertThat(cert.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(3650)));
    }

    @Test
    void theNodeCertificateIsForServerAndClientAuthWithEveryName() throws Exception {
        X509Certificate cert = node.certificate();
        assertThat(cert.getExtendedKeyUsage()).containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(cert.getBasicConstraints()).as("not a CA").isEqualTo(-1);
        assertThat(cert.getSubjectAlternativeNames()).extracting(san -> (String) san.get(1)).containsExactlyElementsOf(NAMES);
        assertThat(cert.getSubjectAlternativeNames()).filteredOn(san -> san.get(1).equals("127.0.0.1"))
                .allMatch(san -> ((Integer) san.get(0)) == 7, "an IP address SAN");
        assertThat(cert.getIssuerX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
    }

    @Test
    void validityIsBackDatedForClockSkewAndEndsAsAsked() {
        X509Certificate cert = node.certificate();
        assertThat(cert.getNotBefore().toInstant()).isEqualTo(NOW.minus(CertificateAuthority.CLOCK_SKEW));
        assertThat(cert.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(365)));
    }

    @Test
    void aNodeCertificateNeverOutlivesItsCa() {
        CertificateAuthority shortCa = CertificateAuthority.create("short", NOW, Duration.ofDays(30), RANDOM);
        X509Certificate cert = shortCa.issue("n", List.of("a.example"), NOW, Duration.ofDays(365), RANDOM).certificate();
        assertThat(cert.getNotAfter()).isEqualTo(shortCa.certificate().getNotAfter());
    }

    @Test
    void theChainVerifiesWithTheCaAndNotWithAnother() throws Exception {
        CertificateFactory f = CertificateFactory.getInstance("X.509");
        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca.certificate(), null)));
        params.setRevocationEnabled(false);
        params.setDate(Date.from(NOW));
        CertPathValidator.getInstance("PKIX").validate(f.generateCertPath(List.of(node.certificate())), params);
        assertThat(ca.signed(node.certificate())).isTrue();

        CertificateAuthority other = CertificateAuthority.create("other", NOW, Duration.ofDays(10), RANDOM);
        assertThat(other.signed(node.certificate())).isFalse();
        PKIXParameters otherParams = new PKIXParameters(Set.of(new TrustAnchor(other.certificate(), null)));
        otherParams.setRevocationEnabled(false);
        assertThatThrownBy(() -> CertPathValidator.getInstance("PKIX").validate(f.generateCertPath(List.of(node.certificate())), otherParams))
                .isInstanceOf(java.security.cert.CertPathValidatorException.class);
    }

    @Test
    void pemRoundTripsAsPkcs8() throws Exception {
        String keyPem = node.keyPem();
        assertThat(keyPem).startsWith("-----BEGIN PRIVATE KEY-----\n").endsWith("-----END PRIVATE KEY-----\n");
        assertThat(Pem.privateKey(keyPem, "RSA")).isEqualTo(node.key());
        assertThat(Pem.certificates(node.certificatePem() + ca.certificatePem())).containsExactly(node.certificate(), ca.certificate());
        CertificateAuthority back = CertificateAuthority.fromPem(ca.certificatePem(), ca.keyPem());
        assertThat(back.certificate()).isEqualTo(ca.certificate());
        assertThat(back.signed(back.issue("x", List.of("x.example"), NOW, Duration.ofDays(1), RANDOM).certificate())).isTrue();
        // the key pair matches: a key store takes them as one entry
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("node", Pem.privateKey(keyPem, "RSA"), new char[0], new java.security.cert.Certificate[] {node.certificate(), ca.certificate()});
    }

    @Test
    void renewalIsDueWhenLessThanAThirdOfTheLifetimeIsLeft() {
        Instant notBefore = node.certificate().getNotBefore().toInstant();
        Duration lifetime = Duration.between(notBefore, node.certificate().getNotAfter().toInstant());
        Instant twoThirds = notBefore.plus(lifetime.multipliedBy(2).dividedBy(3));
        assertThat(node.lessThanLeft(1.0 / 3, twoThirds.minusSeconds(60))).isFalse();
        assertThat(node.lessThanLeft(1.0 / 3, twoThirds.plusSeconds(60))).isTrue();
        assertThat(node.lessThanLeft(1.0 / 3, notBefore.minusSeconds(1))).as("not valid yet").isTrue();
    }
}
