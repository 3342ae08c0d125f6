package io.queenkv.node.kv;

import java.math.BigDecimal;
import java.util.List;

/**
 * One operation of a call, already validated. {@code expect} is {@code null} when not given;
 * {@code 0} means "must not exist".
 */
public sealed interface Op {
    String ns();

    boolean required();

    /** The op's name on the wire. */
    String name();

    default boolean isWrite() {
        return this instanceof Write;
    }

    /** How many keys the op counts against the per-call key limit. */
    default int keyCount() {
        return 1;
    }

    /** Ops that change state or assert a version; at most one of these per key in a call. */
    sealed interface Write extends Op {
        String key();
    }

    record Get(String ns, String key, boolean required) implements Op {
        public String name() { return "get"; }
    }

    record GetMany(String ns, List<String> keys, boolean required) implements Op {
        public GetMany { keys = List.copyOf(keys); }
        public String name() { return "getMany"; }
        public int keyCount() { return keys.size(); }
    }

    record GetPrefix(String ns, String prefix, String after, int limit, boolean keysOnly, boolean required) implements Op {
        public static final int DEFAULT_LIMIT = 100;
        public static final int MAX_LIMIT = 1000;

        public String name() { return "getPrefix"; }
        public int keyCount() { return limit; }
    }

    record Put(String ns, String key, JsonValue value, Expiry expiry, Long expect, boolean required) implements Write {
        public String name() { return "put"; }
    }

    record PutIfAbsent(String ns, String key, JsonValue value, Expiry expiry, boolean required) implements Write {
        public String name() { return "putIfAbsent"; }
    }

    record Delete(String ns, String key, Long expect, boolean required) implements Write {
        public String name() { return "delete"; }
    }

    record Incr(String ns, String key, BigDecimal delta, BigDecimal min, BigDecimal max, Expiry expiry, boolean required)
            implements Write {
        public String name() { return "incr"; }
    }

    record Check(String ns, String key, long expect, boolean required) implements Write {
        public String name() { return "check"; }
    }
}
