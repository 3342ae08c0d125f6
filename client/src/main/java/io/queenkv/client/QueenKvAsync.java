package io.queenkv.client;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The asynchronous form of {@link QueenKv}: the same calls, answering {@link CompletableFuture}s.
 * Nothing here blocks a thread: requests go through {@code HttpClient.sendAsync} and retries wait
 * on a delayed executor. The futures fail with {@link QueenKvRefusedException},
 * {@link QueenKvUnavailableException} or {@link QueenKvException}. Mistakes the SDK catches before
 * sending (a write without a lifetime, a {@code Lifetime.until} in the past) throw right away.
 */
public final class QueenKvAsync {
    private final Transport transport;
    private final Wire wire;
    private final Clock clock;

    QueenKvAsync(Transport transport, Wire wire, Clock clock) {
        this.transport = transport;
        this.wire = wire;
        this.clock = clock;
    }

    // ---- reads ------------------------------------------------------------------------------------

    public CompletableFuture<GetResult<JsonNode>> get(String ns, String key) {
        return get(ns, key, JsonNode.class);
    }

    /** Reads one key, its value mapped to {@code type}. */
    public <T> CompletableFuture<GetResult<T>> get(String ns, String key, Class<T> type) {
        return single(Op.get(ns, key), type);
    }

    public CompletableFuture<GetManyResult<JsonNode>> getMany(String ns, Collection<String> keys) {
        return getMany(ns, keys, JsonNode.class);
    }

    public <T> CompletableFuture<GetManyResult<T>> getMany(String ns, Collection<String> keys, Class<T> type) {
        return single(Op.getMany(ns, keys), type);
    }

    /** The first page (up to 100 rows) of the keys starting with {@code prefix}. */
    public CompletableFuture<GetPrefixResult<JsonNode>> getPrefix(String ns, String prefix) {
        return getPrefix(Op.getPrefix(ns, prefix), JsonNode.class);
    }

    public <T> CompletableFuture<GetPrefixResult<T>> getPrefix(String ns, String prefix, Class<T> type) {
        return getPrefix(Op.getPrefix(ns, prefix), type);
    }

    /** One page as described by {@code query} ({@code after}, {@code limit}, {@code keysOnly}). */
    public <T> CompletableFuture<GetPrefixResult<T>> getPrefix(Op.GetPrefix query, Class<T> type) {
        return single(query, type);
    }

    // ---- writes -----------------------------------------------------------------------------------

    public CompletableFuture<WriteResult> put(String ns, String key, Object value, Lifetime lifetime) {
        return write(Op.put(ns, key, value, lifetime));
    }

    /** Compare-and-swap: applied only if the key is at {@code expectVersion} (0 = must not exist). */
    public CompletableFuture<WriteResult> put(String ns, String key, Object value, Lifetime lifetime, long expectVersion) {
        return write(Op.put(ns, key, value, lifetime).expect(expectVersion));
    }

    public CompletableFuture<WriteResult> putIfAbsent(String ns, String key, Object value, Lifetime lifetime) {
        return write(Op.putIfAbsent(ns, key, value, lifetime));
    }

    public CompletableFuture<WriteResult> delete(String ns, String key) {
        return write(Op.delete(ns, key));
    }

    public CompletableFuture<WriteResult> delete(String ns, String key, long expectVersion) {
        return write(Op.delete(ns, key).expect(expectVersion));
    }

    public CompletableFuture<WriteResult> incr(String ns, String key, Number delta, Lifetime lifetime) {
        return write(Op.incr(ns, key, delta, lifetime));
    }

    public CompletableFuture<WriteResult> check(String ns, String key, long expectVersion) {
        return write(Op.check(ns, key, expectVersion));
    }

    /**
     * Any one write op, e.g. {@code Op.incr(ns, key, 1, ttl).max(100)}. A {@code required} op that
     * is not applied answers like one that is not required: {@code applied:false} with the reason.
     */
    public CompletableFuture<WriteResult> write(Op.WriteOp op) {
        return execute(List.of(op), nullTypes(1), null).thenApply(result -> {
            if (result instanceof BatchResult.PreconditionFailed failed)
                return new WriteResult(op.name(), op.key(), false, failed.kvReason(), failed.value(), failed.version());
            return ((BatchResult.Completed) result).write(0);
        });
    }

    /** A builder for one atomic call of many ops. */
    public Batch batch() {
        return new Batch(this);
    }

    // ---- the call ---------------------------------------------------------------------------------

    private <R> CompletableFuture<R> single(Op.ReadOp op, Class<?> type) {
        List<Class<?>> types = new ArrayList<>(1);
        types.add(type);
        return execute(List.of(op), types, null).thenApply(result -> {
            @SuppressWarnings("unchecked")
            R r = (R) ((BatchResult.Completed) result).result(0);
            return r;
        });
    }

    /**
     * Sends one call. A call with any write carries an Idempotency-Key ({@code idempotencyKey}, or a
     * fresh UUID), the same on every attempt.
     */
    CompletableFuture<BatchResult> execute(List<? extends Op> ops, List<Class<?>> types, String idempotencyKey) {
        if (ops.isEmpty()) return CompletableFuture.completedFuture(new BatchResult.Completed(List.of()));
        byte[] body = wire.callBody(ops, clock);
        boolean write = ops.stream().anyMatch(op -> op instanceof Op.WriteOp);
        String key = write ? (idempotencyKey != null ? idempotencyKey : UUID.randomUUID().toString()) : null;
        return transport.post(body, key).thenApply(json -> wire.call(json, ops, types));
    }

    static List<Class<?>> nullTypes(int n) {
        List<Class<?>> types = new ArrayList<>(n);
        for (int i = 0; i < n; i++) types.add(null);
        return types;
    }

    Wire wire() {
        return wire;
    }

    Transport transport() {
        return transport;
    }
}
