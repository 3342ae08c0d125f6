package io.queenkv.node.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for what {@link java.net.http.HttpClient} will not send: made-up
 * methods, bytes that are not UTF-8, broken request lines, headers of any size, declared lengths
 * that are never sent. One request per connection ({@code Connection: close}).
 */
final class RawHttp {
    /** An answer: status, headers (names lower-cased), body text. */
    record Answer(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {}

    /** The request head for {@code method path} with the given body bytes (Content-Length set to their size). */
    static byte[] request(String host, String method, String path, Map<String, String> headers, byte[] body) {
        StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append("\r\nConnection: close\r\n");
        if (body != null) head.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
        headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        head.append("\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        if (body == null) return h;
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    /** Sends {@code bytes} as they are and reads the answer until the node closes the connection. */
    static Answer exchange(String baseUrl, byte[] bytes, Duration timeout) {
        URI uri = URI.create(baseUrl);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            return parse(readAll(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Answer send(String baseUrl, String method, String path, Map<String, String> headers, byte[] body) {
        return exchange(baseUrl, request(URI.create(baseUrl).getAuthority(), method, path, headers, body), Duration.ofSeconds(30));
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) out.write(buffer, 0, n);
        } catch (java.net.SocketException reset) {
            // A node that refuses a request early may reset the connection after its answer.
            if (out.size() == 0) throw reset;
        }
        return out.toByteArray();
    }

    static Answer parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.UTF_8);
        // An interim answer (100 Continue) comes before the real one.
        while (text.startsWith("HTTP/1.1 1") && text.indexOf("\r\n\r\n") > 0) text = text.substring(text.indexOf("\r\n\r\n") + 4);
        int end = text.indexOf("\r\n\r\n");
        if (!text.startsWith("HTTP/1.1 ") || end < 0) throw new AssertionError("not an HTTP answer: " + text);
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].substring(9, 12));
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        String body = text.substring(end + 4);
        String length = headers.get("content-length");
        if (length != null && body.getBytes(StandardCharsets.UTF_8).length > Integer.parseInt(length))
            body = new String(java.util.Arrays.copyOf(body.getBytes(StandardCharsets.UTF_8), Integer.parseInt(length)), StandardCharsets.UTF_8);
        return new Answer(status, headers, body);
    }
}
