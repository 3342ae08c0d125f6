package io.queenkv.node.tls;

import static io.queenkv.node.testing.TestCertificates.issue;
import static io.queenkv.node.testing.TestCertificates.newCa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLHandshakeException;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.testing.LocalNode;
import io.queenkv.node.testing.TestCertificates;
import io.queenkv.node.testing.TestCertificates.Ca;
import io.queenkv.node.testing.TestCertificates.Issued;

/** A node with the three TLS files: HTTPS only, a mutual-TLS Raft port, certificates renewed on disk (API.md §5). */
class TlsNodeTest {
    private static final Ca CLUSTER_CA = newCa("queen-kv test cluster CA");
    private static final Ca FOREIGN_CA = newCa("some other CA");
    private static final String PUT = "{\"operations\":[{\"op\":\"put\",\"ns\":\"tls\",\"key\":\"k\",\"value\":1,\"forever\":true}]}";

    @TempDir
    Path dir;
    private LocalNode node;

    @AfterEach
    void stop() throws IOException {
        if (node != null) node.close();
    }

    private LocalNode start(Issued certificate, X509Certificate... cas) throws IOException {
        Map<String, String> env = new HashMap<>(TestCertificates.writeNodeFiles(dir, certificate, cas));
        node = LocalNode.start(dir.resolve("data"), env);
        return node;
    }

    @Test
    void theHttpPortServesHttpsOnly() throws Exception {
        start(issue(CLUSTER_CA, "n1"), CLUSTER_CA.certificate());
        assertThat(node.baseUrl).startsWith("https://");
        assertThat(node.post("/api/v1/kv", PUT).statusCode()).isEqualTo(200);

        HttpRequest plain = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.node.httpPort() + "/healthz"))
                .timeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(plain, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);

        // A client that does not trust the cluster CA refuses the node's certificate.
        HttpRequest https = HttpRequest.newBuilder(URI.create(node.baseUrl + "/healthz")).timeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(https, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void theRaftPortTakesOnlyClientsWithACertificateOfTheClusterCa() throws Exception {
        start(issue(CLUSTER_CA, "n1"), CLUSTER_CA.certificate());
        assertThat(groupsSeenBy(tlsClient(issue(CLUSTER_CA, "operator")))).as("a client with a cluster certificate").isTrue();
        assertThat(groupsSeenBy(new Parameters())).as("a plaintext client").isFalse();
        assertThat(groupsSeenBy(tlsClient(issue(FOREIGN_CA, "intruder")))).as("a client with a foreign certificate").isFalse();
        assertThat(groupsSeenBy(tlsClientWithoutCertificate())).as("a TLS client without a certificate").isFalse();
    }

    @Test
    void aCertificateRenewedOnDiskIsUsedByNewConnectionsAndHalfWrittenFilesAreNot() throws Exception {
        Issued first = issue(CLUSTER_CA, "n1");
        start(first, CLUSTER_CA.certificate());
        assertThat(servedSerial()).isEqualTo(first.certificate().getSerialNumber());

        Issued renewed = issue(CLUSTER_CA, "n1");
        // The certificate is written first: until its key follows, the files do not fit together.
        TestCertificates.writePem(dir.resolve("node.crt"), renewed.certificate());
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(200))
                .until(() -> servedSerial().equals(first.certificate().getSerialNumber()));

        TestCertificates.writePem(dir.resolve("node.key"), renewed.key());
        await().atMost(Duration.ofSeconds(5)).until(() -> servedSerial().equals(renewed.certificate().getSerialNumber()));
        assertThat(node.post("/api/v1/kv", PUT).statusCode()).isEqualTo(200);
        assertThat(groupsSeenBy(tlsClient(issue(CLUSTER_CA, "operator")))).isTrue();
    }

    @Test
    void aTlsFileThatCannotBeUsedStopsStartUpWithOneLineNamingIt() {
        Issued node = issue(CLUSTER_CA, "n1");
        Map<String, String> files = TestCertificates.writeNodeFiles(dir, node, CLUSTER_CA.certificate());
        NodeConfig.TlsFiles tls = new NodeConfig.TlsFiles(Path.of(files.get("QUEEN_KV_TLS_CERT_FILE")),
                Path.of(files.get("QUEEN_KV_TLS_KEY_FILE")), Path.of(files.get("QUEEN_KV_TLS_CA_FILE")));

        TestCertificates.writePem(tls.privateKey(), issue(CLUSTER_CA, "other").key());
        assertRefused(tls, "QUEEN_KV_TLS_KEY_FILE=" + tls.privateKey() + ": is not the key of the certificate");

        TestCertificates.writePem(tls.privateKey(), node.key());
        writeText(tls.privateKey(), TestCertificates.pem("EC PRIVATE KEY", new byte[] {1, 2, 3}));
        assertRefused(tls, "holds a SEC1 EC key; convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt");

        TestCertificates.writePem(tls.privateKey(), node.key());
        TestCertificates.writePem(tls.ca(), FOREIGN_CA.certificate());
        assertRefused(tls, "QUEEN_KV_TLS_CERT_FILE=" + tls.certificate() + ": is not accepted by the CA in QUEEN_KV_TLS_CA_FILE");

        TestCertificates.writePem(tls.ca(), CLUSTER_CA.certificate());
        Issued serverOnly = issue(CLUSTER_CA, "n1", TestCertificates.Usage.SERVER);
        TestCertificates.writePem(tls.certificate(), serverOnly.certificate());
        TestCertificates.writePem(tls.privateKey(), serverOnly.key());
        assertRefused(tls, "as a client certificate");

        writeText(tls.certificate(), "not a certificate\n");
        assertRefused(tls, "QUEEN_KV_TLS_CERT_FILE=" + tls.certificate() + ": holds no PEM certificate");

        TestCertificates.writePem(tls.certificate(), node.certificate());
        TestCertificates.writePem(tls.privateKey(), node.key());
        assertThat(NodeTls.load(tls)).isNotNull();
    }

    private static void assertRefused(NodeConfig.TlsFiles tls, String message) {
        assertThatThrownBy(() -> NodeTls.load(tls)).isInstanceOf(NodeConfig.ConfigException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    private static void writeText(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The serial of the certificate a new HTTPS connection is given. */
    private BigInteger servedSerial() throws Exception {
        HttpClient fresh = HttpClient.newBuilder().sslContext(LocalNode.trusting(dir.resolve("ca.crt"))).build();
        HttpResponse<String> r = fresh.send(HttpRequest.newBuilder(URI.create(node.baseUrl + "/healthz")).build(),
                HttpResponse.BodyHandlers.ofString());
        return ((X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0]).getSerialNumber();
    }

    // ---- Raft port probes: a Ratis client asking the node's admin service for its groups ----------

    private static Parameters tlsClient(Issued certificate) throws IOException {
        Path d = Files.createTempDirectory("queen-kv-tls-probe");
        // The probe trusts the node's CA, and its own CA so that its certificate passes NodeTls's own check.
        NodeTls tls = NodeTls.load(filesOf(TestCertificates.writeNodeFiles(d, certificate, CLUSTER_CA.certificate(), FOREIGN_CA.certificate())));
        Parameters p = new Parameters();
        GrpcConfigKeys.TLS.setConf(p, new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true));
        return p;
    }

    private static Parameters tlsClientWithoutCertificate() throws IOException {
        Path d = Files.createTempDirectory("queen-kv-tls-probe");
        NodeTls tls = NodeTls.load(filesOf(TestCertificates.writeNodeFiles(d, issue(CLUSTER_CA, "x"), CLUSTER_CA.certificate())));
        Parameters p = new Parameters();
        GrpcConfigKeys.TLS.setConf(p, new GrpcTlsConfig(null, tls.trustManager(), false));
        return p;
    }

    private static NodeConfig.TlsFiles filesOf(Map<String, String> env) {
        return new NodeConfig.TlsFiles(Path.of(env.get("QUEEN_KV_TLS_CERT_FILE")), Path.of(env.get("QUEEN_KV_TLS_KEY_FILE")),
                Path.of(env.get("QUEEN_KV_TLS_CA_FILE")));
    }

    /** Whether the node's Raft port answered a group listing to a client with these parameters. */
    private boolean groupsSeenBy(Parameters parameters) throws IOException {
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(3, TimeUnit.SECONDS));
        String address = "127.0.0.1:" + node.node.replicated().config().raftPort();
        RaftPeer peer = RaftPeer.newBuilder().setId("n1").setAddress(address).setClientAddress(address).setAdminAddress(address).build();
        try (RaftClient client = RaftClient.newBuilder().setProperties(properties).setParameters(parameters)
                .setRaftGroup(RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), peer))
                .setRetryPolicy(RetryPolicies.noRetry()).build()) {
            return !client.getGroupManagementApi(peer.getId()).list().getGroupIds().isEmpty();
        } catch (IOException | RuntimeException refused) { // gRPC reports a refused handshake unchecked
            return false;
        }
    }
}
