package io.queenkv.cli;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import javax.net.ssl.SSLContext;

import io.queenkv.client.QueenKv;
import io.queenkv.client.TrustedCertificates;

/**
 * Where the CLI calls and as whom: the endpoints, the bearer token and the CA to trust, from the
 * flags or else the environment. One HttpClient serves both the SDK (the KV calls) and the admin
 * client, so TLS and the token are configured once. Built on first use: {@code restore} and
 * {@code --help} never connect.
 */
final class Connection implements AutoCloseable {
    static final String ENDPOINTS_ENV = "QUEEN_KV_ENDPOINTS", TOKEN_ENV = "QUEEN_KV_TOKEN", CA_ENV = "QUEEN_KV_CA_FILE";
    static final String DEFAULT_ENDPOINT = "http://127.0.0.1:6632";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    /** The resolved global options. {@code token} and {@code caFile} may be null. */
    record Target(List<URI> endpoints, String token, Path caFile) {
        static Target from(Optional<String> endpointsFlag, Optional<String> tokenFlag, Optional<String> caFlag, Map<String, String> env) {
            String endpoints = endpointsFlag.or(() -> nonBlank(env.get(ENDPOINTS_ENV))).orElse(DEFAULT_ENDPOINT);
            String token = tokenFlag.or(() -> nonBlank(env.get(TOKEN_ENV))).orElse(null);
            Path ca = caFlag.or(() -> nonBlank(env.get(CA_ENV))).map(Path::of).orElse(null);
            return new Target(parseEndpoints(endpoints), token, ca);
        }

        private static Optional<String> nonBlank(String s) {
            return s == null || s.isBlank() ? Optional.empty() : Optional.of(s.trim());
        }

        private static List<URI> parseEndpoints(String text) {
            List<URI> out = new ArrayList<>();
            for (String part : text.split(",")) {
                String s = part.trim();
                if (s.isEmpty()) continue;
                while (s.endsWith("/")) s = s.substring(0, s.length() - 1);
                URI uri;
                try {
                    uri = URI.create(s);
                } catch (IllegalArgumentException e) {
                    throw CliFailure.usage("--endpoints: not a URL: " + s);
                }
                String scheme = uri.getScheme();
                if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || uri.getHost() == null)
                    throw CliFailure.usage("--endpoints: an endpoint is http://host:port or https://host:port, got " + s);
                out.add(uri);
            }
            if (out.isEmpty()) throw CliFailure.usage("--endpoints: no endpoint given");
            return List.copyOf(out);
        }
    }

    private final Supplier<Target> options;
    private Target target;
    private HttpClient http;
    private QueenKv kv;
    private AdminClient admin;

    /** {@code options} are resolved on first use, so a command that does not connect ignores bad ones. */
    Connection(Supplier<Target> options) {
        this.options = options;
    }

    private Target target() {
        if (target == null) target = options.get();
        return target;
    }

    QueenKv kv() {
        if (kv == null) {
            Target target = target();
            kv = QueenKv.builder().endpoints(target.endpoints().stream().map(URI::toString).toList())
                    .token(target.token()).httpClient(http()).build();
        }
        return kv;
    }

    AdminClient admin() {
        if (admin == null) admin = new AdminClient(target().endpoints(), http(), target().token());
        return admin;
    }

    private HttpClient http() {
        if (http == null) {
            HttpClient.Builder b = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(CONNECT_TIMEOUT)
                    .followRedirects(HttpClient.Redirect.NEVER);
            if (target().caFile() != null) b.sslContext(trusting(target().caFile()));
            http = b.build();
        }
        return http;
    }

    private static SSLContext trusting(Path caFile) {
        if (!Files.isReadable(caFile)) throw CliFailure.file("--ca " + caFile + ": cannot be read", null);
        try {
            return TrustedCertificates.sslContext(caFile);
        } catch (IllegalArgumentException e) {
            throw CliFailure.file("--ca " + caFile + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        if (kv != null) kv.close();
        // HttpClient is AutoCloseable from Java 21 on; before that its threads end when it is unreachable.
        if (http instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // nothing left to do at exit
            }
        }
    }
}
