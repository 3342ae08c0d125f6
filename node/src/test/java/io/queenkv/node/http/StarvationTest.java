package io.queenkv.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.access.Access;
import io.queenkv.node.testing.NodeProcess;

/**
 * One tenant attacks a real node process (512 MiB heap) over real sockets while a probe of another
 * tenant keeps calling: every probe call must answer 200 within {@link #PROBE_BOUND} for as long as
 * the attack lasts. The bound is generous on purpose (a probe call takes milliseconds on an idle
 * node); what it separates is a node that serves the probe from one whose threads or heap the
 * attacker holds, where the probe times out or the node dies. The attacker is a tenant with a
 * valid token: it passes authentication, so only the per-tenant and per-node bounds on calls in
 * progress stand between it and the others.
 */
class StarvationTest {
    static final int ATTACKERS = 300;
    static final Duration PROBE_BOUND = Duration.ofSeconds(5);
    static final Duration ATTACK = Duration.ofSeconds(8);
    static final String ATTACKER_TOKEN = "attacker-token";
    static final String PROBE_TOKEN = "probe-token";

    @TempDir
    static Path dir;
    static NodeProcess node;
    static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(PROBE_BOUND).build();
    static final AtomicInteger PROBE_SEQ = new AtomicInteger();

    final List<Socket> sockets = new ArrayList<>();
    ScheduledExecutorService trickler;

    @BeforeAll
    static void start() throws IOException {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, Access.sha256(ATTACKER_TOKEN) + " tenant-attacker read-write\n"
                + Access.sha256(PROBE_TOKEN) + " tenant-probe read-write\n");
        node = new NodeProcess(dir.resolve("data"), dir.resolve("node.log"), Map.of("QUEEN_KV_TOKENS_FILE", tokens.toString(),
                "QUEEN_KV_WRITE_RATE", "1000000", "QUEEN_KV_READ_RATE", "1000000")).start();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (node != null) node.close();
    }

    @AfterEach
    void closeAttackers() throws InterruptedException {
        if (trickler != null) {
            trickler.shutdownNow();
            assertThat(trickler.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed by the node
            }
        }
        sockets.clear();
    }

    @Test
    void declaredButNeverSentBodiesDoNotExhaustTheHeapOrTheThreads() throws IOException {
        for (int i = 0; i < ATTACKERS; i++)
            open(head("POST", "/api/v1/kv", ATTACKER_TOKEN, 32L * 1024 * 1024));
        probeThroughout();
        // And each stalled body ends: refused at once (429, over the tenant's bound) or timed out (408)
        // once idle for the idle timeout, its connection closed either way.
        for (Socket socket : sockets) {
            socket.setSoTimeout((int) HttpServer.IDLE_TIMEOUT.plusSeconds(10).toMillis());
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).as("answer to a stalled body").matches("(?s)(HTTP/1.1 (408|429) .*)?");
        }
    }

    @Test
    void bodiesTrickledAByteAtATimeDoNotStarveOtherTenants() throws IOException {
        List<Trickle> trickles = new ArrayList<>();
        for (int i = 0; i < ATTACKERS; i++) trickles.add(new Trickle());
        AtomicLong ended = new AtomicLong();
        trickler = Executors.newSingleThreadScheduledExecutor();
        // Each round sends one more byte on every connection and reopens the ones the node ended.
        trickler.scheduleAtFixedRate(() -> trickles.forEach(t -> t.step(ended)), 0, 100, TimeUnit.MILLISECONDS);
        probeThroughout();
        // The node ends trickling bodies (408 or a closed connection) rather than wait for them.
        assertThat(ended.get()).as("trickled connections the node ended").isGreaterThan(ATTACKERS);
    }

    @Test
    void answersThatAreNeverReadDoNotStarveOtherTenants() throws IOException {
        // 64 values of 64 KiB: a getPrefix answer of 4 MiB, more than the socket buffers hold.
        String value = "\"" + "v".repeat(65_000) + "\"";
        for (int chunk = 0; chunk < 4; chunk++) {
            StringBuilder ops = new StringBuilder("[");
            for (int i = 0; i < 16; i++)
                ops.append(i == 0 ? "" : ",").append("{\"op\":\"put\",\"ns\":\"big\",\"key\":\"k").append(chunk * 16 + i)
                        .append("\",\"value\":").append(value).append(",\"forever\":true}");
            assertThat(call(ATTACKER_TOKEN, ops.append("]").toString()).statusCode()).isEqualTo(200);
        }
        byte[] getPrefix = "[{\"op\":\"getPrefix\",\"ns\":\"big\",\"prefix\":\"k\",\"limit\":1000}]".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < ATTACKERS; i++) {
            byte[] head = head("POST", "/api/v1/kv", ATTACKER_TOKEN, getPrefix.length);
            byte[] request = new byte[head.length + getPrefix.length];
            System.arraycopy(head, 0, request, 0, head.length);
            System.arraycopy(getPrefix, 0, request, head.length, getPrefix.length);
            open(request);
        }
        probeThroughout();
    }

    /** Every probe call, one after the other for the whole attack, answers 200 within the bound. */
    private void probeThroughout() {
        AtomicInteger probes = new AtomicInteger();
        Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                .during(ATTACK).atMost(ATTACK.plus(PROBE_BOUND.multipliedBy(2)))
                .until(() -> {
                    probes.incrementAndGet();
                    return probe();
                });
        assertThat(probes.get()).isGreaterThan(10);
    }

    private static boolean probe() {
        String key = "p" + PROBE_SEQ.incrementAndGet();
        try {
            HttpResponse<String> put = call(PROBE_TOKEN,
                    "[{\"op\":\"put\",\"ns\":\"probe\",\"key\":\"" + key + "\",\"value\":1,\"forever\":true},{\"op\":\"get\",\"ns\":\"probe\",\"key\":\"" + key + "\"}]");
            return put.statusCode() == 200 && put.body().contains("\"found\":true");
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static HttpResponse<String> call(String token, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(node.baseUrl + "/api/v1/kv")).timeout(PROBE_BOUND)
                .header("Authorization", "Bearer " + token).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static byte[] head(String method, String path, String token, long contentLength) {
        return (method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/json\r\nContent-Length: " + contentLength + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A connection that sent {@code bytes} and then neither sends nor reads. */
    private void open(byte[] bytes) throws IOException {
        Socket socket = connect();
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
        sockets.add(socket);
    }

    private static Socket connect() throws IOException {
        URI uri = URI.create(node.baseUrl);
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
        return socket;
    }

    /** A body of a declared 1,000 bytes, sent one byte a step; reopened when the node ends it. */
    private final class Trickle {
        Socket socket;
        int sent;

        void step(AtomicLong ended) {
            try {
                if (socket == null) {
                    socket = connect();
                    synchronized (sockets) {
                        sockets.add(socket);
                    }
                    socket.getOutputStream().write(head("POST", "/api/v1/kv", ATTACKER_TOKEN, 1000));
                    sent = 0;
                }
                OutputStream out = socket.getOutputStream();
                out.write(sent++ == 0 ? '[' : ' ');
                out.flush();
                // The node answered (408, 429) and closed: the next write fails, or there is something to read.
                if (socket.getInputStream().available() > 0 || sent >= 999) throw new IOException("ended");
            } catch (IOException e) {
                ended.incrementAndGet();
                try {
                    if (socket != null) socket.close();
                } catch (IOException ignored) {
                    // gone already
                }
                socket = null;
            }
        }
    }
}
