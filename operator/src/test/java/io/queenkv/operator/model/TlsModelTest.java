package io.queenkv.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.queenkv.operator.Fixtures;
import io.queenkv.operator.crd.IssuerRef;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.SecretRef;
import io.queenkv.operator.crd.TlsMode;
import io.queenkv.operator.crd.TlsSpec;
import io.queenkv.operator.tls.CertificateAuthority;
import io.queenkv.operator.tls.IssuedCertificate;
import io.queenkv.operator.tls.Pem;

class TlsModelTest {
    static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    static final SecureRandom RANDOM = new SecureRandom();
    static QueenKvCluster c = Fixtures.cluster(3);
    static CertificateAuthority ca;
    static IssuedCertificate node;

    @BeforeAll
    static void issue() {
        ca = TlsModel.newCa(c, NOW, RANDOM);
        node = TlsModel.issueNodeCertificate(c, ca, NOW, RANDOM);
    }

    @Test
    void tlsIsOnByDefaultAndTheModeFollowsFromWhatIsSet() {
        assertThat(TlsModel.mode(Fixtures.cluster(3).getSpec())).isEqualTo(TlsMode.Operator);
        assertThat(TlsModel.secretName(c)).contains("kv-tls");
        assertThat(new TlsSpec(new SecretRef("mine")).effectiveMode()).isEqualTo(TlsMode.Secret);
        assertThat(new TlsSpec(new IssuerRef("ca", IssuerRef.Kind.ClusterIssuer)).effectiveMode()).isEqualTo(TlsMode.CertManager);
        assertThat(new TlsSpec(TlsMode.Disabled).effectiveMode()).isEqualTo(TlsMode.Disabled);
        QueenKvCluster own = Fixtures.cluster(3);
        own.getSpec().setTls(new TlsSpec(new SecretRef("mine")));
        assertThat(TlsModel.secretName(own)).contains("mine");
        QueenKvCluster off = Fixtures.cluster(3);
        off.getSpec().setTls(new TlsSpec(TlsMode.Disabled));
        assertThat(TlsModel.secretName(off)).isEmpty();
        assertThat(TlsModel.enabled(off.getSpec())).isFalse();
    }

    @Test
    void theNodeCertificateNamesEveryPodAndTheClientService() {
        assertThat(TlsModel.certificateNames(c)).containsExactly("*.kv-peers.prod.svc", "*.kv-peers.prod.svc.cluster.local",
                "kv", "kv.prod", "kv.prod.svc", "kv.prod.svc.cluster.local", "localhost", "127.0.0.1");
        // every pod's stable name matches the wildcard (one label)
        String pod = Names.podHost("kv", "prod", 4);
        assertThat(pod).isEqualTo("kv-4.kv-peers.prod.svc");
        assertThat(TlsModel.subjectAlternativeNames(node.certificate())).containsAll(TlsModel.certificateNames(c));
    }

    @Test
    void theNodeSecretHoldsTheCaAndTheNodeCertificateButNotTheCaKey() {
        Secret s = TlsModel.nodeSecret(c, ca, node);
        assertThat(s.getMetadata().getName()).isEqualTo("kv-tls");
        assertThat(s.getType()).isEqualTo("kubernetes.io/tls");
        assertThat(s.getData()).containsOnlyKeys("ca.crt", "tls.crt", "tls.key");
        assertThat(TlsModel.text(s, "ca.crt")).isEqualTo(ca.certificatePem());
        assertThat(Pem.certificates(TlsModel.text(s, "tls.crt"))).containsExactly(node.certificate());
        assertThat(TlsModel.text(s, "tls.key")).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(s.getMetadata().getOwnerReferences()).singleElement().satisfies(r -> assertThat(r.getUid()).isEqualTo(Fixtures.UID));

        Secret caSecret = TlsModel.caSecret(c, ca);
        assertThat(caSecret.getMetadata().getName()).isEqualTo("kv-ca");
        assertThat(caSecret.getData()).containsOnlyKeys("ca.crt", "ca.key");
        assertThat(TlsModel.ca(caSecret).orElseThrow().certificate()).isEqualTo(ca.certificate());
    }

    @Test
    void aFreshNodeSecretNeedsNothingAndIsRenewedWithAThirdOfItsLifetimeLeft() {
        Secret s = TlsModel.nodeSecret(c, ca, node);
        assertThat(TlsModel.reissueReason(c, s, ca, NOW)).isEmpty();
        assertThat(TlsModel.reissueReason(c, s, ca, NOW.plus(Duration.ofDays(240)))).isEmpty();
        assertThat(TlsModel.reissueReason(c, s, ca, NOW.plus(Duration.ofDays(250)))).hasValueSatisfying(r -> assertThat(r).contains("renewing"));
        assertThat(TlsModel.reissueReason(c, null, ca, NOW)).isPresent();
    }

    @Test
    void aNodeSecretOfAnotherCaOrLackingANameIsIssuedAgain() {
        CertificateAuthority other = TlsModel.newCa(c, NOW, RANDOM);
        assertThat(TlsModel.reissueReason(c, TlsModel.nodeSecret(c, ca, node), other, NOW)).isPresent();
        Secret foreignCert = TlsModel.nodeSecret(c, ca, other.issue("x", TlsModel.certificateNames(c), NOW, Duration.ofDays(365), RANDOM));
        assertThat(TlsModel.reissueReason(c, foreignCert, ca, NOW)).hasValueSatisfying(r -> assertThat(r).contains("not signed"));
        Secret fewNames = TlsModel.nodeSecret(c, ca, ca.issue("x", List.of("*.kv-peers.prod.svc"), NOW, Duration.ofDays(365), RANDOM));
        assertThat(TlsModel.reissueReason(c, fewNames, ca, NOW)).hasValueSatisfying(r -> assertThat(r).contains("lacks"));
    }

    @Test
    void commonNamesFitX509sLimit() {
        QueenKvCluster longNames = Fixtures.cluster("k".repeat(40), "n".repeat(63), 3);
        assertThat(TlsModel.commonName(longNames, " node")).hasSize(64);
        assertThat(TlsModel.commonName(c, " CA")).isEqualTo("queen-kv prod/kv CA");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theCertManagerCertificateAsksForTheSameNamesAndBothUsages() {
        QueenKvCluster cm = Fixtures.cluster(3);
        cm.getSpec().setTls(new TlsSpec(new IssuerRef("cluster-ca", IssuerRef.Kind.ClusterIssuer)));
        GenericKubernetesResource cert = TlsModel.certificate(cm);
        assertThat(cert.getApiVersion()).isEqualTo("cert-manager.io/v1");
        assertThat(cert.getKind()).isEqualTo("Certificate");
        assertThat(cert.getMetadata().getName()).isEqualTo("kv-tls");
        assertThat(cert.getMetadata().getOwnerReferences()).singleElement().satisfies(r -> assertThat(r.getUid()).isEqualTo(Fixtures.UID));
        Map<String, Object> spec = (Map<String, Object>) cert.getAdditionalProperties().get("spec");
        assertThat(spec).containsEntry("secretName", "kv-tls").doesNotContainKey("commonName");
        assertThat((List<String>) spec.get("dnsNames")).containsExactly("*.kv-peers.prod.svc", "*.kv-peers.prod.svc.cluster.local",
                "kv", "kv.prod", "kv.prod.svc", "kv.prod.svc.cluster.local", "localhost");
        assertThat((List<String>) spec.get("ipAddresses")).containsExactly("127.0.0.1");
        assertThat((List<String>) spec.get("usages")).contains("server auth", "client auth");
        assertThat((Map<String, Object>) spec.get("privateKey")).containsEntry("encoding", "PKCS8").containsEntry("algorithm", "RSA");
        assertThat((Map<String, Object>) spec.get("issuerRef")).containsEntry("name", "cluster-ca").containsEntry("kind", "ClusterIssuer")
                .containsEntry("group", "cert-manager.io");
    }
}
