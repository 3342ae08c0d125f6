package io.queenkv.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.testing.NodeProcess;

/**
 * With authentication off every call is the default tenant's, so the bound on calls in progress
 * tells callers apart by address: one client that holds all the slots it may (here 300 bodies
 * declared and never sent, from 127.0.0.2) leaves the others (a probe from 127.0.0.1) their own.
 */
class StarvationWithoutAuthTest {
    static final int ATTACKERS = 300;
    static final Duration PROBE_BOUND = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    NodeProcess node;
    final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException, IOException {
        for (Socket s : sockets) s.close();
        if (node != null) node.close();
    }

    @Test
    void oneClientAddressCannotTakeTheSlotsOfAnother() throws IOException {
        node = new NodeProcess(dir.resolve("data"), dir.resolve("node.log"),
                Map.of("QUEEN_KV_WRITE_RATE", "1000000", "QUEEN_KV_READ_RATE", "1000000")).start();
        URI uri = URI.create(node.baseUrl);
        for (int i = 0; i < ATTACKERS; i++) {
            Socket socket = new Socket();
            socket.bind(new InetSocketAddress("127.0.0.2", 0));
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
            socket.getOutputStream().write(StarvationTest.head("POST", "/api/v1/kv", "none", 32L * 1024 * 1024));
            socket.getOutputStream().flush();
            sockets.add(socket);
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(PROBE_BOUND).build();
        AtomicInteger probes = new AtomicInteger();
        Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).during(Duration.ofSeconds(8))
                .atMost(Duration.ofSeconds(20)).until(() -> {
                    String key = "p" + probes.incrementAndGet();
                    HttpRequest put = HttpRequest.newBuilder(URI.create(node.baseUrl + "/api/v1/kv")).timeout(PROBE_BOUND)
                            .header("content-type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("[{\"op\":\"put\",\"ns\":\"probe\",\"key\":\"" + key
                                    + "\",\"value\":1,\"forever\":true}]")).build();
                    try {
                        return client.send(put, HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
                    } catch (IOException e) {
                        return false;
                    }
                });
        assertThat(probes.get()).isGreaterThan(10);
    }
}
