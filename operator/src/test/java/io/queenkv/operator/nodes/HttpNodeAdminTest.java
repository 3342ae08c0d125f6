package io.queenkv.operator.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.queenkv.operator.Fixtures;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.TlsMode;
import io.queenkv.operator.crd.TlsSpec;

/**
 * The admin client over plain HTTP against real sockets: a node that answers, one that drops the
 * connection without answering, and a closed port. A client whose call failed other than by a refused
 * connection or a timeout is replaced, so one that broke inside cannot blind the operator for good.
 */
@EnableKubernetesMockClient(crud = true)
class HttpNodeAdminTest {
    KubernetesClient client;
    HttpServer node;
    ServerSocket dropping;
    Thread dropper;
    final AtomicInteger built = new AtomicInteger();
    final QueenKvCluster c = Fixtures.cluster("kv", "prod", 3);

    @AfterEach
    void stop() throws Exception {
        if (node != null) node.stop(0);
        if (dropping != null) dropping.close();
        if (dropper != null) dropper.join(2_000);
    }

    @Test
    void aClientThatFailedOtherThanByARefusedConnectionIsReplaced() throws Exception {
        HttpNodeAdmin admin = admin(serveView(), dropEveryConnection(), closedPort());
        assertThat(admin.cluster(c, 0).isLeader()).isTrue();
        assertThat(built).hasValue(1);

        assertThatThrownBy(() -> admin.cluster(c, 2)).isInstanceOf(NodeAdminException.class).hasMessageContaining("n2")
                .hasMessageContaining("could not connect").hasMessageNotContaining("java.");
        assertThat(admin.cluster(c, 0).isLeader()).isTrue();
        assertThat(built).as("kept after a refused connection").hasValue(1);

        assertThatThrownBy(() -> admin.cluster(c, 1)).isInstanceOf(NodeAdminException.class).hasMessageContaining("n1")
                .hasMessageNotContaining("java.");
        assertThat(admin.cluster(c, 0).isLeader()).isTrue();
        assertThat(built).as("replaced after a connection dropped without an answer").hasValue(2);
        assertThat(admin.cluster(c, 0).term()).isEqualTo(3);
        assertThat(built).hasValue(2);
    }

    private HttpNodeAdmin admin(int... ports) {
        c.getSpec().setTls(new TlsSpec(TlsMode.Disabled));
        return new HttpNodeAdmin(client, n -> URI.create("http://127.0.0.1:" + ports[n.ordinal()]),
                () -> {
                    built.incrementAndGet();
                    return HttpClient.newBuilder();
                }, Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(5));
    }

    private int serveView() throws IOException {
        node = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        node.createContext("/api/v1/cluster", exchange -> {
            byte[] body = HttpNodeAdminTlsTest.VIEW.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        node.start();
        return node.getAddress().getPort();
    }

    /** Reads the request, then closes the connection without a byte of answer. */
    private int dropEveryConnection() throws IOException {
        dropping = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        dropper = new Thread(() -> {
            while (!dropping.isClosed()) {
                try (Socket s = dropping.accept()) {
                    s.getInputStream().read(new byte[4096]);
                } catch (IOException e) {
                    return;
                }
            }
        });
        dropper.start();
        return dropping.getLocalPort();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
