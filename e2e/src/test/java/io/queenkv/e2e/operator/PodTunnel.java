package io.queenkv.e2e.operator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BiFunction;

/**
 * A local HTTP CONNECT proxy to the pods, so that this JVM calls a node by its pod's DNS name
 * ({@code https://kv-0.kv-peers.<ns>.svc:6632}, a name this JVM cannot resolve) and the TLS client
 * checks the certificate against that name, while the bytes go to wherever the harness reaches the pod
 * (a loopback address, a port-forward). Used by the operator's admin client and the SDK clients of the
 * scenarios through {@link #proxy()}; the JDK client tunnels every https:// call through CONNECT.
 */
final class PodTunnel implements AutoCloseable {
    private final ServerSocket server;
    private final BiFunction<String, Integer, InetSocketAddress> target;
    private final Thread acceptor;

    /** @param target pod host name and port → where this JVM connects */
    PodTunnel(BiFunction<String, Integer, InetSocketAddress> target) {
        this.target = target;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        acceptor = daemon("pod-tunnel-accept", this::accept);
    }

    /** This tunnel for https:// calls; plain http:// calls go direct (they are made to reachable addresses). */
    ProxySelector proxy() {
        Proxy tunnel = new Proxy(Proxy.Type.HTTP, new InetSocketAddress(server.getInetAddress(), server.getLocalPort()));
        return new ProxySelector() {
            @Override
            public List<Proxy> select(URI uri) {
                return List.of("https".equalsIgnoreCase(uri.getScheme()) ? tunnel : Proxy.NO_PROXY);
            }

            @Override
            public void connectFailed(URI uri, SocketAddress address, IOException e) {
                // the call itself reports the failure
            }
        };
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                daemon("pod-tunnel", () -> tunnel(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void tunnel(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            String request = head(in);
            String[] line = request.split("\r\n", 2)[0].split(" ");
            if (line.length < 2 || !line[0].equals("CONNECT")) {
                out.write("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                return;
            }
            int colon = line[1].lastIndexOf(':');
            InetSocketAddress to;
            try {
                to = target.apply(line[1].substring(0, colon), Integer.parseInt(line[1].substring(colon + 1)));
            } catch (RuntimeException e) {
                out.write("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                return;
            }
            try (Socket upstream = new Socket()) {
                upstream.connect(to, 2000);
                out.write("HTTP/1.1 200 Connection Established\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                Thread back = daemon("pod-tunnel-back", () -> pump(upstream, client));
                pump(client, upstream);
                back.join(1000);
            } catch (IOException e) {
                out.write("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            }
        } catch (IOException e) {
            // the client went away
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The request head up to the blank line. */
    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            b.write(c);
            byte[] a = b.toByteArray();
            int n = a.length;
            if (n >= 4 && a[n - 4] == '\r' && a[n - 3] == '\n' && a[n - 2] == '\r' && a[n - 1] == '\n') break;
            if (n > 8192) throw new IOException("request head too long");
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    /** Copies until either side closes, then closes the other's output so the peer sees the end. */
    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16384];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) != -1) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed
        } finally {
            try {
                to.shutdownOutput();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        acceptor.interrupt();
    }
}
