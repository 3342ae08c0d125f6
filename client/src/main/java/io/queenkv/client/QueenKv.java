package io.queenkv.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A client of a Queen KV cluster: typed calls for every op of the HTTP API, over one or many
 * endpoints with failover, retries and an automatic Idempotency-Key on every write call.
 *
 * <pre>{@code
 * try (QueenKv kv = QueenKv.connect("http://kv-0:6632", "http://kv-1:6632", "http://kv-2:6632")) {
 *     WriteResult w = kv.put("orders", "9137", new Order("paid"), Lifetime.ttl("30d"));
 *     GetResult<Order> r = kv.get("orders", "9137", Order.class);
 *     WriteResult cas = kv.put("orders", "9137", new Order("shipped"), Lifetime.ttl("30d"), r.version());
 * }
 * }</pre>
 *
 * Thread-safe; share one instance. Each method sends one call; the async forms are on
 * {@link #async()}. Refusals (4xx) throw {@link QueenKvRefusedException}; when no endpoint answers
 * within the attempts allowed, {@link QueenKvUnavailableException}.
 */
public final class QueenKv implements AutoCloseable {
    private final QueenKvAsync async;
    private final HttpClient http;
    private final boolean ownsHttp;

    private QueenKv(QueenKvAsync async, HttpClient http, boolean ownsHttp) {
        this.async = async;
        this.http = http;
        this.ownsHttp = ownsHttp;
    }

    /** Connects to one or many endpoints ({@code http://host:6632} or {@code https://…}) with the defaults. */
    public static QueenKv connect(String... endpoints) {
        return builder().endpoints(endpoints).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The asynchronous form of every call. */
    public QueenKvAsync async() {
        return async;
    }

    /** The ObjectMapper that writes and reads values. */
    public ObjectMapper mapper() {
        return async.wire().mapper();
    }

    /** The endpoint the next call is sent to first (the last one that answered). */
    public URI currentEndpoint() {
        return async.transport().preferredEndpoint();
    }

    // ---- reads ------------------------------------------------------------------------------------

    /** Reads one key; the value as a {@link JsonNode}. */
    public GetResult<JsonNode> get(String ns, String key) {
        return await(async.get(ns, key));
    }

    /** Reads one key, its value mapped to {@code type} (a POJO, a record, {@code String}, …). */
    public <T> GetResult<T> get(String ns, String key, Class<T> type) {
        return await(async.get(ns, key, type));
    }

    public GetManyResult<JsonNode> getMany(String ns, Collection<String> keys) {
        return await(async.getMany(ns, keys));
    }

    public <T> GetManyResult<T> getMany(String ns, Collection<String> keys, Class<T> type) {
        return await(async.getMany(ns, keys, type));
    }

    /** The first page (up to 100 rows) of the keys starting with {@code prefix}. */
    public GetPrefixResult<JsonNode> getPrefix(String ns, String prefix) {
        return await(async.getPrefix(ns, prefix));
    }

    public <T> GetPrefixResult<T> getPrefix(String ns, String prefix, Class<T> type) {
        return await(async.getPrefix(ns, prefix, type));
    }

    /** One page as {@code query} describes it: {@code Op.getPrefix(ns, prefix).after(cursor).limit(500)}. */
    public <T> GetPrefixResult<T> getPrefix(Op.GetPrefix query, Class<T> type) {
        return await(async.getPrefix(query, type));
    }

    /** Every live key starting with {@code prefix}, in key order, fetched page by page as the stream is read. */
    public <T> Stream<Row<T>> scan(String ns, String prefix, Class<T> type) {
        return scan(Op.getPrefix(ns, prefix), type);
    }

    /**
     * Every row from {@code query} on (its {@code after}, page size {@code limit} and
     * {@code keysOnly} are kept), fetched one page per call as the stream is read. Each page is its
     * own linearizable read: rows written during the walk may or may not appear.
     */
    public <T> Stream<Row<T>> scan(Op.GetPrefix query, Class<T> type) {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(new PageIterator<>(query, type),
                Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    private final class PageIterator<T> implements Iterator<Row<T>> {
        private Op.GetPrefix next;
        private final Class<T> type;
        private Iterator<Row<T>> page = List.<Row<T>>of().iterator();

        PageIterator(Op.GetPrefix query, Class<T> type) {
            this.next = query;
            this.type = type;
        }

        @Override
        public boolean hasNext() {
            while (!page.hasNext() && next != null) {
                GetPrefixResult<T> result = getPrefix(next, type);
                page = result.rows().iterator();
                if (result.truncated() && result.nextAfter() != null) {
                    if (result.rows().isEmpty() && Objects.equals(result.nextAfter(), next.after()))
                        throw new QueenKvException("getPrefix makes no progress after " + next.after()
                                + " (a single row is larger than the call's read budget)");
                    next = next.after(result.nextAfter());
                } else {
                    next = null;
                }
            }
            return page.hasNext();
        }

        @Override
        public Row<T> next() {
            if (!hasNext()) throw new NoSuchElementException();
            return page.next();
        }
    }

    // ---- writes -----------------------------------------------------------------------------------

    /** Writes {@code value} (any Jackson-mappable object, or null) for {@code lifetime}. */
    public WriteResult put(String ns, String key, Object value, Lifetime lifetime) {
        return await(async.put(ns, key, value, lifetime));
    }

    /**
     * Compare-and-swap: applied only if the key is at {@code expectVersion} (0 = must not exist);
     * otherwise {@code applied:false} with the winner's value and version.
     */
    public WriteResult put(String ns, String key, Object value, Lifetime lifetime, long expectVersion) {
        return await(async.put(ns, key, value, lifetime, expectVersion));
    }

    /** Writes only if the key is absent; otherwise {@link WriteReason#EXISTS} with the current value. */
    public WriteResult putIfAbsent(String ns, String key, Object value, Lifetime lifetime) {
        return await(async.putIfAbsent(ns, key, value, lifetime));
    }

    /** Deletes the key; {@link WriteReason#ABSENT} if there was none. */
    public WriteResult delete(String ns, String key) {
        return await(async.delete(ns, key));
    }

    /** Deletes the key only if it is at {@code expectVersion}. */
    public WriteResult delete(String ns, String key, long expectVersion) {
        return await(async.delete(ns, key, expectVersion));
    }

    /** Adds {@code delta} to the number at the key (0 if absent); {@code lifetime} applies when it is created. */
    public WriteResult incr(String ns, String key, Number delta, Lifetime lifetime) {
        return await(async.incr(ns, key, delta, lifetime));
    }

    /** Asserts the key is at {@code expectVersion} (0 = absent); writes nothing. */
    public WriteResult check(String ns, String key, long expectVersion) {
        return await(async.check(ns, key, expectVersion));
    }

    /** Any one write op, e.g. {@code kv.write(Op.incr("limits", key, 1, Lifetime.ttl("2m")).max(100))}. */
    public WriteResult write(Op.WriteOp op) {
        return await(async.write(op));
    }

    /** A builder for one atomic call of many ops; see {@link Batch}. */
    public Batch batch() {
        return async.batch();
    }

    @Override
    public void close() {
        if (ownsHttp) close(http);
    }

    /** Closes an HttpClient the SDK made: AutoCloseable from Java 21 on; before that its threads end when it is unreachable. */
    static void close(HttpClient http) {
        if (http instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // nothing to do
            }
        }
    }

    /** Waits for a future, rethrowing the SDK's exceptions as they are. */
    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            throw new QueenKvException("interrupted while waiting for the node", e);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof CompletionException && cause.getCause() != null) cause = cause.getCause();
            if (cause instanceof RuntimeException re) throw re;
            if (cause instanceof Error err) throw err;
            throw new QueenKvException(cause.getMessage(), cause);
        } catch (CancellationException e) {
            throw new QueenKvException("the call was cancelled", e);
        }
    }

    /** Settings of a {@link QueenKv}; {@link #endpoints} is required. */
    public static final class Builder {
        private final List<URI> endpoints = new ArrayList<>();
        private String token;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration requestTimeout = Duration.ofSeconds(15);
        private RetryPolicy retry = RetryPolicy.DEFAULT;
        private SSLContext sslContext;
        private ObjectMapper mapper;
        private Clock clock = Clock.systemUTC();
        private HttpClient httpClient;
        private Executor executor;

        private Builder() {}

        /** Base URLs of the nodes, e.g. {@code http://kv-0:6632}; https uses TLS. Calls fail over in this order. */
        public Builder endpoints(String... urls) {
            for (String url : urls) endpoint(URI.create(Objects.requireNonNull(url, "endpoint").trim()));
            return this;
        }

        public Builder endpoints(Collection<String> urls) {
            return endpoints(urls.toArray(String[]::new));
        }

        public Builder endpoint(URI url) {
            endpoints.add(checkedEndpoint(url));
            return this;
        }

        /** An http:// or https:// URL with a host, without trailing slashes; else IllegalArgumentException. */
        static URI checkedEndpoint(URI url) {
            String scheme = url.getScheme();
            if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme))
                throw new IllegalArgumentException("an endpoint is an http:// or https:// URL, got " + url);
            if (url.getHost() == null) throw new IllegalArgumentException("an endpoint needs a host, got " + url);
            String s = url.toString();
            while (s.endsWith("/")) s = s.substring(0, s.length() - 1);
            return URI.create(s);
        }

        /** A bearer token, sent as {@code Authorization: Bearer <token>}. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** How long to wait for a connection (default 2 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /**
         * How long one attempt waits for its answer (default 15 s; a node gives up on a call after
         * 10 s with a 503 {@code kv_timeout}).
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "requestTimeout");
            return this;
        }

        /** Attempts per call (default 3); 1 turns retries off. */
        public Builder maxAttempts(int attempts) {
            this.retry = retry.withMaxAttempts(attempts);
            return this;
        }

        public Builder retryPolicy(RetryPolicy policy) {
            this.retry = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * The TLS context for https endpoints (default: the JDK's default trust store). The node's
         * certificate is always checked, host name included.
         */
        public Builder sslContext(SSLContext context) {
            this.sslContext = context;
            return this;
        }

        /**
         * Trusts exactly the CA certificates of a PEM file (e.g. the cluster's {@code QUEEN_KV_TLS_CA_FILE})
         * for https endpoints, instead of the JDK's trust store; the same as {@link #sslContext} with a
         * context made from the file. Fails at once if the file cannot be read or holds no certificate.
         */
        public Builder trustCertificates(java.nio.file.Path pemFile) {
            return sslContext(TrustedCertificates.sslContext(Objects.requireNonNull(pemFile, "pemFile")));
        }

        /** The mapper for values (default: a plain {@code ObjectMapper} with the modules found on the class path). */
        public Builder objectMapper(ObjectMapper mapper) {
            this.mapper = mapper;
            return this;
        }

        /** The clock {@link Lifetime#until} is measured against (default: the system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Where the HTTP client's work runs, and with it the completion of every future
         * {@link #async()} returns (default: the JDK HttpClient's own pool of threads).
         *
         * <p>{@code Runnable::run} completes each answer on the client's I/O thread, without handing it
         * to another thread: about half the CPU per call in the benchmark (README "Benchmarks"). Then
         * nothing that runs in a callback of an async call may block — neither a wait of its own nor a
         * call of this client's blocking API — or every call of this client stalls until it returns.
         * Not with {@link #httpClient}, which brings its own executor.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** Use this HttpClient (its own timeouts and TLS settings apply; {@link #close()} leaves it open). */
        public Builder httpClient(HttpClient client) {
            this.httpClient = client;
            return this;
        }

        public QueenKv build() {
            if (endpoints.isEmpty()) throw new IllegalArgumentException("at least one endpoint is needed");
            if (httpClient != null && executor != null)
                throw new IllegalArgumentException("executor applies to the HttpClient the SDK makes; set it on the HttpClient given instead");
            HttpClient http = httpClient;
            boolean owns = false;
            if (http == null) {
                HttpClient.Builder b = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(connectTimeout)
                        .followRedirects(HttpClient.Redirect.NEVER);
                if (sslContext != null) b.sslContext(sslContext);
                if (executor != null) b.executor(executor);
                http = b.build();
                owns = true;
            }
            ObjectMapper m = mapper != null ? mapper : new ObjectMapper().findAndRegisterModules();
            Wire wire = new Wire(m);
            Transport transport = new Transport(endpoints, http, token, requestTimeout, retry, wire);
            return new QueenKv(new QueenKvAsync(transport, wire, clock), http, owns);
        }

        static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive");
            return d;
        }
    }
}
