package io.queenkv.client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One atomic call of many ops (one Raft log entry when it writes). The modifiers
 * {@link #expect(long)}, {@link #min(Number)}, {@link #max(Number)} and {@link #required()} apply to
 * the op added just before them.
 *
 * <pre>{@code
 * BatchResult result = kv.batch()
 *         .put("orders", "9137", order, Lifetime.ttl("30d")).expect(4).required()
 *         .incr("stats", "orders-shipped", 1, Lifetime.forever())
 *         .get("orders", "9137", Order.class)
 *         .execute();
 * }</pre>
 * Not thread-safe; build it on one thread.
 */
public final class Batch {
    private final QueenKvAsync kv;
    private final List<Op> ops = new ArrayList<>();
    private final List<Class<?>> types = new ArrayList<>();
    private String idempotencyKey;

    Batch(QueenKvAsync kv) {
        this.kv = kv;
    }

    // ---- reads ------------------------------------------------------------------------------------

    public Batch get(String ns, String key) {
        return add(Op.get(ns, key), null);
    }

    /** A {@code get} whose value {@link BatchResult.Completed#get(int)} maps to {@code type}. */
    public Batch get(String ns, String key, Class<?> type) {
        return add(Op.get(ns, key), type);
    }

    public Batch getMany(String ns, Collection<String> keys) {
        return add(Op.getMany(ns, keys), null);
    }

    public Batch getMany(String ns, Collection<String> keys, Class<?> type) {
        return add(Op.getMany(ns, keys), type);
    }

    public Batch getPrefix(String ns, String prefix) {
        return add(Op.getPrefix(ns, prefix), null);
    }

    public Batch getPrefix(Op.GetPrefix query, Class<?> type) {
        return add(query, type);
    }

    // ---- writes -----------------------------------------------------------------------------------

    public Batch put(String ns, String key, Object value, Lifetime lifetime) {
        return add(Op.put(ns, key, value, lifetime));
    }

    public Batch putIfAbsent(String ns, String key, Object value, Lifetime lifetime) {
        return add(Op.putIfAbsent(ns, key, value, lifetime));
    }

    public Batch delete(String ns, String key) {
        return add(Op.delete(ns, key));
    }

    public Batch incr(String ns, String key, Number delta, Lifetime lifetime) {
        return add(Op.incr(ns, key, delta, lifetime));
    }

    public Batch check(String ns, String key, long expectVersion) {
        return add(Op.check(ns, key, expectVersion));
    }

    /** Adds any op (a read's value stays a {@code JsonNode}). */
    public Batch add(Op op) {
        return add(op, null);
    }

    /** Adds a read op whose value is mapped to {@code type}. */
    public Batch add(Op.ReadOp op, Class<?> type) {
        return add((Op) op, type);
    }

    private Batch add(Op op, Class<?> type) {
        ops.add(java.util.Objects.requireNonNull(op, "op"));
        types.add(type);
        return this;
    }

    // ---- modifiers of the last op -------------------------------------------------------------------

    /** The last op ({@code put} or {@code delete}) becomes a compare-and-swap on {@code version}. */
    public Batch expect(long version) {
        Op last = last("expect");
        if (last instanceof Op.Put put) return replaceLast(put.expect(version));
        if (last instanceof Op.Delete del) return replaceLast(del.expect(version));
        throw new IllegalStateException("expect(…) applies to a put or a delete, not to " + last.name()
                + " (use check(…) to assert a version, putIfAbsent implies expect 0)");
    }

    /** The last op ({@code incr}) is not applied below {@code lowest}. */
    public Batch min(Number lowest) {
        if (last("min") instanceof Op.Incr incr) return replaceLast(incr.min(lowest));
        throw new IllegalStateException("min(…) applies to an incr");
    }

    /** The last op ({@code incr}) is not applied above {@code highest}. */
    public Batch max(Number highest) {
        if (last("max") instanceof Op.Incr incr) return replaceLast(incr.max(highest));
        throw new IllegalStateException("max(…) applies to an incr");
    }

    /** If the last op (a write or check) is not applied, the whole call is aborted and nothing is written. */
    public Batch required() {
        if (last("required") instanceof Op.WriteOp w) return replaceLast(w.asRequired());
        throw new IllegalStateException("required() applies to a write or a check, not to a read");
    }

    /**
     * Sends the call with this Idempotency-Key instead of a generated one: repeating the same call
     * with the same key (e.g. after a crash) applies it once and answers the recorded result.
     */
    public Batch idempotencyKey(String key) {
        if (key == null || key.isEmpty() || key.length() > 256)
            throw new IllegalArgumentException("an Idempotency-Key has 1 to 256 characters");
        this.idempotencyKey = key;
        return this;
    }

    public int size() {
        return ops.size();
    }

    /** The ops added so far. */
    public List<Op> ops() {
        return List.copyOf(ops);
    }

    private Op last(String modifier) {
        if (ops.isEmpty()) throw new IllegalStateException(modifier + " needs an op before it");
        return ops.get(ops.size() - 1);
    }

    private Batch replaceLast(Op op) {
        ops.set(ops.size() - 1, op);
        return this;
    }

    // ---- sending ----------------------------------------------------------------------------------

    /** Sends the call and waits for its answer. */
    public BatchResult execute() {
        return QueenKv.await(executeAsync());
    }

    public CompletableFuture<BatchResult> executeAsync() {
        return kv.execute(List.copyOf(ops), new ArrayList<>(types), idempotencyKey);
    }
}
