package io.queenkv.e2e.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of one node that loses the answers of its first {@code dropFirst}
 * connections: the request reaches the node (which applies it and starts answering), then the
 * proxy closes the client's connection without passing the answer on — a response lost in the
 * network, as the SDK sees it.
 */
final class LossyProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final AtomicInteger dropsLeft;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private final Thread acceptor;

    LossyProxy(int targetPort, int dropFirst) throws IOException {
        this.targetPort = targetPort;
        this.dropsLeft = new AtomicInteger(dropFirst);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "lossy-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    int connections() {
        return connections.get();
    }

    int dropped() {
        return dropped.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                connections.incrementAndGet();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                boolean drop = dropsLeft.getAndDecrement() > 0;
                pump(client, upstream, "up");
                if (drop) swallowAnswer(upstream, client);
                else pump(upstream, client, "down");
            } catch (IOException e) {
                if (server.isClosed()) return;
            }
        }
    }

    private static void pump(Socket from, Socket to, String name) {
        Thread t = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException ignored) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "lossy-proxy-" + name);
        t.setDaemon(true);
        t.start();
    }

    /** Waits for the node's answer to begin (so the call was applied), then drops both connections. */
    private void swallowAnswer(Socket upstream, Socket client) {
        Thread t = new Thread(() -> {
            try {
                int b = upstream.getInputStream().read();
                if (b >= 0) dropped.incrementAndGet();
            } catch (IOException ignored) {
                // closed
            } finally {
                closeQuietly(client);
                closeQuietly(upstream);
            }
        }, "lossy-proxy-drop");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closed already
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
