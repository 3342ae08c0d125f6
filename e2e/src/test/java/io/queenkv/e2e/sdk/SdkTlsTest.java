package io.queenkv.e2e.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import javax.net.ssl.SSLHandshakeException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.client.Lifetime;
import io.queenkv.client.QueenKv;
import io.queenkv.client.QueenKvUnavailableException;
import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.NodeProcessCluster;
import io.queenkv.e2e.harness.TestCertificates;

/** The SDK against a node serving HTTPS: it verifies the node's certificate and host name. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SdkTlsTest {
    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    private NodeProcessCluster cluster;
    private Path clusterCa;
    private Path foreignCa;
    private int port;

    @BeforeAll
    void start() throws Exception {
        cluster = new NodeProcessCluster(1, Map.of(), true).start();
        port = cluster.node("n1").httpPort();
        clusterCa = Files.createTempFile(cluster.baseDir(), "cluster-ca", ".pem");
        TestCertificates.writePem(clusterCa, TestCertificates.CLUSTER_CA.certificate());
        foreignCa = Files.createTempFile(cluster.baseDir(), "foreign-ca", ".pem");
        TestCertificates.writePem(foreignCa, TestCertificates.FOREIGN_CA.certificate());
    }

    @AfterAll
    void stop() {
        if (cluster != null) cluster.close();
    }

    @Test
    void aClientTrustingTheClusterCaWorksByAnyNameTheCertificateHas() {
        logs.watch(cluster);
        for (String url : new String[] {"https://127.0.0.1:" + port, "https://localhost:" + port}) {
            try (QueenKv kv = QueenKv.builder().endpoints(url).trustCertificates(clusterCa).build()) {
                long version = kv.put("sdk-tls", "k", url, Lifetime.forever()).version();
                assertThat(kv.get("sdk-tls", "k", String.class).version()).isEqualTo(version);
            }
        }
    }

    @Test
    void aClientThatDoesNotTrustTheClusterCaOrReachesTheNodeByAnotherNameIsRefused() {
        logs.watch(cluster);
        String untrusted = "unable to find valid certification path";
        assertRefusedTls(QueenKv.builder().endpoints("https://127.0.0.1:" + port), untrusted); // the JDK's trust store
        assertRefusedTls(QueenKv.builder().endpoints("https://127.0.0.1:" + port).trustCertificates(foreignCa), untrusted);
        // 127.0.0.2 reaches the same node (it listens on every address), but its certificate does not name it.
        assertRefusedTls(QueenKv.builder().endpoints("https://127.0.0.2:" + port).trustCertificates(clusterCa),
                "No subject alternative names matching IP address 127.0.0.2");
    }

    private static void assertRefusedTls(QueenKv.Builder builder, String why) {
        try (QueenKv kv = builder.maxAttempts(1).build()) {
            assertThatThrownBy(() -> kv.get("sdk-tls", "k"))
                    .isInstanceOf(QueenKvUnavailableException.class)
                    .satisfies(e -> assertThat(causes(e)).anyMatch(c -> c instanceof SSLHandshakeException))
                    .satisfies(e -> assertThat(causes(e)).anyMatch(c -> String.valueOf(c.getMessage()).contains(why)));
        }
    }

    private static java.util.List<Throwable> causes(Throwable t) {
        java.util.List<Throwable> out = new java.util.ArrayList<>();
        for (Throwable c = t; c != null && !out.contains(c); c = c.getCause()) out.add(c);
        return out;
    }
}
