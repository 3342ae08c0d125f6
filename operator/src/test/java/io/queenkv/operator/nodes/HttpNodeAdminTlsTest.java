package io.queenkv.operator.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.queenkv.operator.Fixtures;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.model.TlsModel;
import io.queenkv.operator.tls.CertificateAuthority;
import io.queenkv.operator.tls.IssuedCertificate;

/**
 * The admin client over HTTPS against a real TLS server: it trusts exactly the cluster CA from the TLS
 * Secret and checks the host name, so a certificate of another CA, or one not naming the host called, fails.
 */
@EnableKubernetesMockClient(crud = true)
class HttpNodeAdminTlsTest {
    static final Instant NOW = Instant.now();
    static final SecureRandom RANDOM = new SecureRandom();
    static final String VIEW = "{\"nodeId\":\"n0\",\"role\":\"leader\",\"term\":3,\"leaderId\":\"n0\",\"members\":[{\"id\":\"n0\",\"role\":\"leader\"}],"
            + "\"commitIndex\":7,\"appliedIndex\":7,\"readmitting\":[\"n2\"]}";

    KubernetesClient client;
    HttpsServer server;
    final QueenKvCluster c = Fixtures.cluster("kv", "prod", 3);
    final CertificateAuthority ca = TlsModel.newCa(c, NOW, RANDOM);

    @AfterEach
    void stop() {
        if (server != null) server.stop(0);
    }

    @Test
    void trustsTheClusterCaAndReadsTheView() throws Exception {
        storeTlsSecret(ca);
        int port = serve(ca.issue("node", List.of("localhost"), NOW, Duration.ofDays(1), RANDOM));
        ClusterView v = admin("localhost", port).cluster(c, 0);
        assertThat(v.isLeader()).isTrue();
        assertThat(v.readmitting()).containsExactly("n2");
    }

    @Test
    void refusesACertificateOfAnotherCa() throws Exception {
        storeTlsSecret(ca);
        CertificateAuthority other = TlsModel.newCa(c, NOW, RANDOM);
        int port = serve(other.issue("node", List.of("localhost"), NOW, Duration.ofDays(1), RANDOM));
        assertThatThrownBy(() -> admin("localhost", port).cluster(c, 0)).isInstanceOf(NodeAdminException.class)
                .hasMessageContaining("failed");
    }

    @Test
    void refusesACertificateThatDoesNotNameTheHostCalled() throws Exception {
        storeTlsSecret(ca);
        int port = serve(ca.issue("node", List.of("elsewhere.example"), NOW, Duration.ofDays(1), RANDOM));
        assertThatThrownBy(() -> admin("localhost", port).cluster(c, 0)).isInstanceOf(NodeAdminException.class);
    }

    @Test
    void withoutTheTlsSecretNoCallIsMade() {
        assertThatThrownBy(() -> admin("localhost", 1).cluster(c, 0)).isInstanceOf(NodeAdminException.class)
                .hasMessageContaining("kv-tls");
    }

    private HttpNodeAdmin admin(String host, int port) {
        return new HttpNodeAdmin(client, node -> {
            assertThat(node.httpUrl()).startsWith("https://");
            return URI.create("https://" + host + ":" + port);
        });
    }

    private void storeTlsSecret(CertificateAuthority authority) {
        IssuedCertificate node = authority.issue("x", TlsModel.certificateNames(c), NOW, Duration.ofDays(1), RANDOM);
        client.resource(TlsModel.nodeSecret(c, authority, node)).inNamespace("prod").create();
    }

    private int serve(IssuedCertificate cert) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("node", cert.key(), new char[0], new java.security.cert.Certificate[] {cert.certificate()});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, new char[0]);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(ctx));
        server.createContext("/api/v1/cluster", exchange -> {
            byte[] body = VIEW.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return server.getAddress().getPort();
    }
}
