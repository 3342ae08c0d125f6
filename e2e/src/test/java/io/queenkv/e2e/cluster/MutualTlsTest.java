package io.queenkv.e2e.cluster;

import static io.queenkv.e2e.harness.KvHttp.opGet;
import static io.queenkv.e2e.harness.KvHttp.opIncr;
import static io.queenkv.e2e.harness.KvHttp.opPut;
import static io.queenkv.e2e.harness.KvHttp.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;
import io.queenkv.e2e.harness.TestCertificates;
import io.queenkv.e2e.harness.TestCertificates.Ca;

/**
 * A 3-node cluster with the three TLS files (API.md §5): HTTPS on every node, mutual TLS on the
 * Raft port that refuses plaintext and foreign clients, and certificates renewed on disk — from
 * the same CA and then from a new one — while a writer runs, without losing an acknowledged write.
 */
@Timeout(300)
class MutualTlsTest {
    static final String NS = "tls";
    static final Ca CA = TestCertificates.CLUSTER_CA;
    static final Ca NEXT_CA = TestCertificates.NEXT_CLUSTER_CA;

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    NodeProcessCluster cluster;
    final KvHttp http = new KvHttp(Duration.ofSeconds(5));

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    private NodeProcessCluster startTlsCluster() {
        return logs.watch(new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"), true)).start();
    }

    @Test
    void aMutualTlsClusterServesTheContractOnEveryNodeAddsAMemberAndFailsOver() {
        cluster = startTlsCluster();
        for (String id : cluster.ids()) {
            assertThat(cluster.url(id)).startsWith("https://");
            servesTheContract(cluster.url(id), id);
            assertThat(plainHttp(cluster.node(id).httpPort())).as("plain HTTP on %s's port", id).isFalse();
        }

        // A new member: the leader's direct Raft client reaches its admin service over mutual TLS.
        cluster.addNode("n4");
        String leader = cluster.leaderId();
        KvHttp.Reply added = http.adminAddMember(cluster.url(leader), "n4", cluster.raftAddress("n4"), cluster.httpAddress("n4"));
        assertThat(added.ok()).as("add n4: %s", added).isTrue();
        cluster.awaitReady("n4", Duration.ofSeconds(60));
        servesTheContract(cluster.url("n4"), "n4");

        // Leader failover: the others elect a new leader over the mutual-TLS Raft link.
        cluster.kill9(leader);
        String newLeader = cluster.leaderId(Duration.ofSeconds(20));
        assertThat(newLeader).isNotEqualTo(leader);
        for (String id : cluster.liveIds()) servesTheContract(cluster.url(id), id + "-after-failover");
        cluster.restart(leader);
        ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
        ClusterChecks.say("tls: contract served on every node; n4 added; leader %s killed, %s took over", leader, newLeader);
    }

    /** Writes, reads, CAS and a batch through one node; every read is checked against what was written. */
    private void servesTheContract(String url, String tag) {
        String key = "k-" + tag;
        KvHttp.Reply put = await().atMost(Duration.ofSeconds(20)).until(() -> http.put(url, NS, key, value("v1")), KvHttp.Reply::ok);
        long v1 = put.result(0).path("version").asLong();
        assertThat(put.result(0).path("applied").asBoolean()).isTrue();
        assertThat(http.get(url, NS, key).result(0).path("value").asText()).isEqualTo("v1");

        KvHttp.Reply cas = http.cas(url, NS, key, v1, value("v2"));
        assertThat(cas.result(0).path("applied").asBoolean()).as("CAS at v%d: %s", v1, cas).isTrue();
        KvHttp.Reply lost = http.cas(url, NS, key, v1, value("v3"));
        assertThat(lost.result(0).path("applied").asBoolean()).isFalse();
        assertThat(lost.result(0).path("reason").asText()).isEqualTo("version");
        assertThat(lost.result(0).path("value").asText()).isEqualTo("v2");

        KvHttp.Reply batch = http.call(url, opPut(NS, key + "-b", value(1)), opIncr(NS, key + "-n", 5), opGet(NS, key + "-b"));
        assertThat(batch.ok()).as("batch: %s", batch).isTrue();
        assertThat(batch.result(2).path("value").asInt()).isEqualTo(1);
        assertThat(batch.result(1).path("value").asInt()).isEqualTo(5);

        KvHttp.Reply single = http.getJson(url, "/api/v1/kv/" + NS + "/" + key);
        assertThat(single.ok()).isTrue();
        assertThat(single.header("ETag")).isEqualTo("\"" + cas.result(0).path("version").asLong() + "\"");
    }

    @Test
    void theRaftPortRefusesPlaintextAndTlsClientsWithoutAClusterCertificate() throws Exception {
        cluster = startTlsCluster();
        for (String id : cluster.ids()) {
            int raftPort = cluster.node(id).raftPort();
            assertThat(http2Answers(raftPort, TestCertificates.sslContext(TestCertificates.issue(CA, "probe"), CA)))
                    .as("a client with a cluster certificate (the probe works)").isTrue();
            assertThat(http2Answers(raftPort, null)).as("plaintext gRPC (HTTP/2) on %s's Raft port", id).isFalse();
            assertThat(http2Answers(raftPort, TestCertificates.sslContext(TestCertificates.issue(TestCertificates.FOREIGN_CA, "intruder"), CA)))
                    .as("a client with a foreign CA's certificate on %s", id).isFalse();
            assertThat(http2Answers(raftPort, TestCertificates.sslContext(null, CA)))
                    .as("a TLS client without a certificate on %s", id).isFalse();
        }
        // The refused connections did not disturb the cluster.
        servesTheContract(cluster.url(cluster.leaderId()), "after-probes");
    }

    @Test
    void certificatesRenewedOnDiskUnderAWriterLoseNoAcknowledgedWrite() {
        cluster = startTlsCluster();
        List<String> urls = cluster.ids().stream().map(cluster::url).toList();
        try (AckedWriter writer = new AckedWriter(NS, "w", () -> urls, Duration.ofSeconds(3)).start()) {
            writer.awaitAcksSince(0, 20, Duration.ofSeconds(20));

            // 1. A renewal from the same CA, one node after the other.
            for (String id : cluster.ids()) {
                TestCertificates.Issued renewed = TestCertificates.issue(CA, id);
                cluster.writeTlsFiles(id, renewed, CA.certificate());
                awaitServed(id, renewed.certificate());
                writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));
            }

            // 2. A new CA: first every node trusts both, then every node gets a certificate of the new one.
            for (String id : cluster.ids()) cluster.writeTlsCaBundle(id, CA.certificate(), NEXT_CA.certificate());
            for (String id : cluster.ids()) {
                TestCertificates.Issued next = TestCertificates.issue(NEXT_CA, id);
                cluster.writeTlsFiles(id, next, CA.certificate(), NEXT_CA.certificate());
                awaitServed(id, next.certificate());
                writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));
            }
            // New Raft connections, all with the new certificates: one node restarts, the others
            // reconnect to it (and it to them) with what they re-read from disk.
            String restarted = cluster.anyFollower();
            cluster.restart(restarted);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));
            // 3. The old CA leaves the bundle; the cluster keeps working on the new one alone.
            for (String id : cluster.ids()) cluster.writeTlsCaBundle(id, NEXT_CA.certificate());
            String leader = cluster.leaderId();
            cluster.kill9(leader);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));
            cluster.restart(leader);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));

            writer.stop();
            ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
            for (String id : cluster.ids()) writer.assertNoneLost(cluster.url(id));
            ClusterChecks.say("tls rotation: %d acknowledged, %d unknown, longest pause between acknowledgements %d ms",
                    writer.ackedCount(), writer.unknownCount(), writer.maxGap().toMillis());
        }
    }

    /** Waits until a new HTTPS connection to the node is given {@code expected}. */
    private void awaitServed(String id, X509Certificate expected) {
        await(id + " to serve certificate " + expected.getSerialNumber().toString(16)).atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> servedSerial(cluster.url(id)).equals(expected.getSerialNumber()));
    }

    /** The serial of the certificate the node presents to a new connection. */
    private static BigInteger servedSerial(String url) throws Exception {
        HttpClient fresh = HttpClient.newBuilder().sslContext(TestCertificates.sslContext(null, CA, NEXT_CA))
                .connectTimeout(Duration.ofSeconds(2)).build();
        HttpResponse<String> r = fresh.send(HttpRequest.newBuilder(URI.create(url + "/healthz")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        return ((X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0]).getSerialNumber();
    }

    /** Whether a plain HTTP request to the port gets any HTTP answer. */
    private static boolean plainHttp(int port) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() > 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Opens a gRPC-style connection to a Raft port — plaintext when {@code tls} is null, else TLS
     * with ALPN {@code h2} — sends the HTTP/2 connection preface and an empty SETTINGS frame, and
     * answers whether the server sent a SETTINGS frame back (what every gRPC server does first).
     */
    private static boolean http2Answers(int port, SSLContext tls) {
        try (Socket raw = new Socket()) {
            raw.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            raw.setSoTimeout(5_000);
            Socket s = raw;
            if (tls != null) {
                SSLSocket ssl = (SSLSocket) tls.getSocketFactory().createSocket(raw, "127.0.0.1", port, true);
                SSLParameters params = ssl.getSSLParameters();
                params.setApplicationProtocols(new String[] {"h2"});
                params.setEndpointIdentificationAlgorithm("HTTPS");
                ssl.setSSLParameters(params);
                ssl.startHandshake();
                s = ssl;
            }
            OutputStream out = s.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // SETTINGS, no parameters, stream 0
            out.flush();
            InputStream in = s.getInputStream();
            byte[] header = in.readNBytes(9);
            return header.length == 9 && header[3] == 4;
        } catch (IOException refused) { // a handshake alert, a reset or a closed connection
            return false;
        }
    }
}
