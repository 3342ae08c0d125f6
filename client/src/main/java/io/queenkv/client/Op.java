package io.queenkv.client;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * One op of a call (API.md §1), built with the static factories and refined with the withers:
 *
 * <pre>{@code
 * Op.put("orders", "9137", order, Lifetime.ttl("30d")).expect(4).asRequired()
 * Op.incr("limits", "api:42", 1, Lifetime.ttl("2m")).max(100)
 * Op.getPrefix("orders", "2026-").limit(500).keysOnly(true)
 * }</pre>
 * A write that creates a value needs a {@link Lifetime}; without one the op is refused here,
 * before anything is sent.
 */
public sealed interface Op permits Op.ReadOp, Op.WriteOp {
    String ns();

    /** The wire name: {@code get}, {@code getMany}, {@code getPrefix}, {@code put}, … */
    String name();

    /** Ops that only read. */
    sealed interface ReadOp extends Op permits Get, GetMany, GetPrefix {}

    /** Ops that write (or, for {@code check}, assert) one key; they can be {@code required}. */
    sealed interface WriteOp extends Op permits Put, PutIfAbsent, Delete, Incr, Check {
        String key();

        boolean required();

        /** This op with {@code required:true}: if it is not applied, the whole call is aborted. */
        WriteOp asRequired();
    }

    // ---- factories -------------------------------------------------------------------------------

    static Get get(String ns, String key) {
        return new Get(ns, key);
    }

    static GetMany getMany(String ns, Collection<String> keys) {
        return new GetMany(ns, List.copyOf(keys));
    }

    static GetMany getMany(String ns, String... keys) {
        return new GetMany(ns, List.of(keys));
    }

    static GetPrefix getPrefix(String ns, String prefix) {
        return new GetPrefix(ns, prefix, null, null, false);
    }

    static Put put(String ns, String key, Object value, Lifetime lifetime) {
        return new Put(ns, key, value, lifetime, null, false);
    }

    static PutIfAbsent putIfAbsent(String ns, String key, Object value, Lifetime lifetime) {
        return new PutIfAbsent(ns, key, value, lifetime, false);
    }

    static Delete delete(String ns, String key) {
        return new Delete(ns, key, null, false);
    }

    static Incr incr(String ns, String key, Number delta, Lifetime lifetime) {
        return new Incr(ns, key, delta, null, null, lifetime, false);
    }

    static Check check(String ns, String key, long expectVersion) {
        return new Check(ns, key, expectVersion, false);
    }

    // ---- the ops --------------------------------------------------------------------------------

    record Get(String ns, String key) implements ReadOp {
        public Get {
            requireNsKey(ns, key);
        }

        @Override
        public String name() {
            return "get";
        }
    }

    record GetMany(String ns, List<String> keys) implements ReadOp {
        public GetMany {
            Objects.requireNonNull(ns, "ns");
            keys = List.copyOf(Objects.requireNonNull(keys, "keys"));
        }

        @Override
        public String name() {
            return "getMany";
        }
    }

    /**
     * One page of the keys starting with {@code prefix}, in key byte order, after the exclusive
     * cursor {@code after} (null = from the start), at most {@code limit} (null = the node's 100).
     */
    record GetPrefix(String ns, String prefix, String after, Integer limit, boolean keysOnly) implements ReadOp {
        public GetPrefix {
            Objects.requireNonNull(ns, "ns");
            if (prefix == null || prefix.isEmpty()) throw new IllegalArgumentException("getPrefix needs a non-empty prefix");
            if (limit != null && limit < 1) throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }

        public GetPrefix after(String cursor) {
            return new GetPrefix(ns, prefix, cursor, limit, keysOnly);
        }

        public GetPrefix limit(int pageSize) {
            return new GetPrefix(ns, prefix, after, pageSize, keysOnly);
        }

        /** With {@code true}: rows without their values. */
        public GetPrefix keysOnly(boolean withoutValues) {
            return new GetPrefix(ns, prefix, after, limit, withoutValues);
        }

        @Override
        public String name() {
            return "getPrefix";
        }
    }

    /** Writes {@code value} (any Jackson-mappable object, or null); {@code expect} makes it a CAS. */
    record Put(String ns, String key, Object value, Lifetime lifetime, Long expect, boolean required) implements WriteOp {
        public Put {
            requireNsKey(ns, key);
            requireLifetime(lifetime, "put");
            requireExpect(expect);
        }

        /** Compare-and-swap: applied only if the key is at {@code version} (0 = must not exist). */
        public Put expect(long version) {
            return new Put(ns, key, value, lifetime, version, required);
        }

        @Override
        public Put asRequired() {
            return new Put(ns, key, value, lifetime, expect, true);
        }

        @Override
        public String name() {
            return "put";
        }
    }

    record PutIfAbsent(String ns, String key, Object value, Lifetime lifetime, boolean required) implements WriteOp {
        public PutIfAbsent {
            requireNsKey(ns, key);
            requireLifetime(lifetime, "putIfAbsent");
        }

        @Override
        public PutIfAbsent asRequired() {
            return new PutIfAbsent(ns, key, value, lifetime, true);
        }

        @Override
        public String name() {
            return "putIfAbsent";
        }
    }

    record Delete(String ns, String key, Long expect, boolean required) implements WriteOp {
        public Delete {
            requireNsKey(ns, key);
            requireExpect(expect);
        }

        public Delete expect(long version) {
            return new Delete(ns, key, version, required);
        }

        @Override
        public Delete asRequired() {
            return new Delete(ns, key, expect, true);
        }

        @Override
        public String name() {
            return "delete";
        }
    }

    /**
     * Adds {@code delta} (integer or decimal, may be negative) to the number at the key (0 when
     * absent); past {@code min}/{@code max} it is not applied ({@link WriteReason#LIMIT}). The
     * lifetime applies only when the counter is created.
     */
    record Incr(String ns, String key, Number delta, Number min, Number max, Lifetime lifetime, boolean required) implements WriteOp {
        public Incr {
            requireNsKey(ns, key);
            Objects.requireNonNull(delta, "delta");
            requireLifetime(lifetime, "incr");
        }

        public Incr min(Number lowest) {
            return new Incr(ns, key, delta, lowest, max, lifetime, required);
        }

        public Incr max(Number highest) {
            return new Incr(ns, key, delta, min, highest, lifetime, required);
        }

        @Override
        public Incr asRequired() {
            return new Incr(ns, key, delta, min, max, lifetime, true);
        }

        @Override
        public String name() {
            return "incr";
        }
    }

    /** Asserts that the key is at {@code expect} (0 = absent); writes nothing. */
    record Check(String ns, String key, long expect, boolean required) implements WriteOp {
        public Check {
            requireNsKey(ns, key);
            requireExpect(expect);
        }

        @Override
        public Check asRequired() {
            return new Check(ns, key, expect, true);
        }

        @Override
        public String name() {
            return "check";
        }
    }

    private static void requireNsKey(String ns, String key) {
        Objects.requireNonNull(ns, "ns");
        Objects.requireNonNull(key, "key");
    }

    private static void requireLifetime(Lifetime lifetime, String op) {
        if (lifetime == null)
            throw new IllegalArgumentException(op + " needs a lifetime: Lifetime.ttl(Duration), Lifetime.ttl(\"30d\"), "
                    + "Lifetime.until(Instant) or Lifetime.forever()");
    }

    private static void requireExpect(Long expect) {
        if (expect != null && expect < 0) throw new IllegalArgumentException("expect must be >= 0, got " + expect);
    }
}
