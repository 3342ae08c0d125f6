package io.queenkv.node.kv;

import java.math.BigDecimal;
import java.util.List;

/** Short factories for ops, values and times used by the engine tests. */
final class Kv {
    static final String NS = "app";
    static final String TENANT = "00000000-0000-0000-0000-000000000001";
    static final String OTHER_TENANT = "00000000-0000-0000-0000-000000000002";
    /** 2023-11-14T22:13:20Z in epoch microseconds. */
    static final long T0 = 1_700_000_000_000_000L;
    static final long SEC = 1_000_000L;

    private Kv() {}

    static JsonValue json(String compact) {
        return JsonValue.of(compact);
    }

    static JsonValue str(String s) {
        return JsonValue.of("\"" + s + "\"");
    }

    static Expiry ttl(long seconds) {
        return new Expiry.Ttl(seconds);
    }

    static final Expiry FOREVER = Expiry.FOREVER;

    static BigDecimal dec(String s) {
        return s == null ? null : new BigDecimal(s);
    }

    static Op.Get get(String key) {
        return new Op.Get(NS, key, false);
    }

    static Op.GetMany getMany(String... keys) {
        return new Op.GetMany(NS, List.of(keys), false);
    }

    static Op.GetPrefix getPrefix(String prefix, String after, int limit, boolean keysOnly) {
        return new Op.GetPrefix(NS, prefix, after, limit, keysOnly, false);
    }

    static Op.GetPrefix getPrefix(String prefix) {
        return getPrefix(prefix, null, Op.GetPrefix.DEFAULT_LIMIT, false);
    }

    static Op.Put put(String key, String json, Expiry expiry) {
        return new Op.Put(NS, key, JsonValue.of(json), expiry, null, false);
    }

    static Op.Put put(String key, String json) {
        return put(key, json, FOREVER);
    }

    static Op.Put putExpect(String key, String json, long expect) {
        return new Op.Put(NS, key, JsonValue.of(json), FOREVER, expect, false);
    }

    static Op.PutIfAbsent putIfAbsent(String key, String json, Expiry expiry) {
        return new Op.PutIfAbsent(NS, key, JsonValue.of(json), expiry, false);
    }

    static Op.Delete delete(String key) {
        return new Op.Delete(NS, key, null, false);
    }

    static Op.Delete delete(String key, long expect) {
        return new Op.Delete(NS, key, expect, false);
    }

    static Op.Incr incr(String key, String delta) {
        return new Op.Incr(NS, key, dec(delta), null, null, FOREVER, false);
    }

    static Op.Incr incr(String key, String delta, String min, String max, Expiry expiry) {
        return new Op.Incr(NS, key, dec(delta), dec(min), dec(max), expiry, false);
    }

    static Op.Check check(String key, long expect) {
        return new Op.Check(NS, key, expect, false);
    }

    /** The same op with {@code required:true}. */
    static Op required(Op op) {
        if (op instanceof Op.Put p) return new Op.Put(p.ns(), p.key(), p.value(), p.expiry(), p.expect(), true);
        if (op instanceof Op.PutIfAbsent p) return new Op.PutIfAbsent(p.ns(), p.key(), p.value(), p.expiry(), true);
        if (op instanceof Op.Delete d) return new Op.Delete(d.ns(), d.key(), d.expect(), true);
        if (op instanceof Op.Incr i) return new Op.Incr(i.ns(), i.key(), i.delta(), i.min(), i.max(), i.expiry(), true);
        if (op instanceof Op.Check c) return new Op.Check(c.ns(), c.key(), c.expect(), true);
        throw new IllegalArgumentException("not a write: " + op);
    }

    /** The same op in another namespace. */
    static Op inNs(String ns, Op op) {
        if (op instanceof Op.Get g) return new Op.Get(ns, g.key(), g.required());
        if (op instanceof Op.GetMany g) return new Op.GetMany(ns, g.keys(), g.required());
        if (op instanceof Op.GetPrefix g) return new Op.GetPrefix(ns, g.prefix(), g.after(), g.limit(), g.keysOnly(), g.required());
        if (op instanceof Op.Put p) return new Op.Put(ns, p.key(), p.value(), p.expiry(), p.expect(), p.required());
        if (op instanceof Op.PutIfAbsent p) return new Op.PutIfAbsent(ns, p.key(), p.value(), p.expiry(), p.required());
        if (op instanceof Op.Delete d) return new Op.Delete(ns, d.key(), d.expect(), d.required());
        if (op instanceof Op.Incr i) return new Op.Incr(ns, i.key(), i.delta(), i.min(), i.max(), i.expiry(), i.required());
        if (op instanceof Op.Check c) return new Op.Check(ns, c.key(), c.expect(), c.required());
        throw new IllegalArgumentException(String.valueOf(op));
    }
}
