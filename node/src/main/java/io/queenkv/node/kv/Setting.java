package io.queenkv.node.kv;

import java.util.Arrays;
import java.util.List;

/**
 * Every numeric setting of a node, one row each: its name in the admin API and the resource, its
 * environment variable, default, minimum and maximum, and whether it goes live through the log or
 * needs a restart. The environment parser, the admin API, the Raft buffer sizing and the README
 * read this table; the operator's CRD is checked against it by a test. There is no other copy.
 */
public enum Setting {
    MAX_OPS_PER_CALL("maxOpsPerCall", "QUEEN_KV_MAX_OPS_PER_CALL", 256, 1, 10_000, Applies.LIVE),
    MAX_KEYS_PER_CALL("maxKeysPerCall", "QUEEN_KV_MAX_KEYS_PER_CALL", 1_024, 1, 4_096, Applies.LIVE),
    MAX_VALUE_BYTES("maxValueBytes", "QUEEN_KV_MAX_VALUE_BYTES", 65_536, 1, 16L << 20, Applies.LIVE),
    /** The Raft buffers are sized once, from this maximum, so no committed value makes an entry Ratis refuses. */
    MAX_BODY_BYTES("maxBodyBytes", "QUEEN_KV_MAX_BODY_BYTES", 32L << 20, 1_024, 64L << 20, Applies.LIVE),
    WRITE_RATE("writeRate", "QUEEN_KV_WRITE_RATE", 100, 1, 10_000_000, Applies.LIVE),
    READ_RATE("readRate", "QUEEN_KV_READ_RATE", 200, 1, 10_000_000, Applies.LIVE),
    /** Calls in progress on one node for one tenant (429 past it), and for all tenants (503 past it). */
    MAX_CALLS_PER_TENANT("maxCallsPerTenant", "QUEEN_KV_MAX_CALLS_PER_TENANT", 64, 1, 4_096, Applies.RESTART),
    MAX_CALLS_PER_NODE("maxCallsPerNode", "QUEEN_KV_MAX_CALLS_PER_NODE", 192, 1, 8_192, Applies.RESTART),
    SNAPSHOT_EVERY("snapshotEvery", "QUEEN_KV_SNAPSHOT_EVERY", 10_000, 10, 100_000_000, Applies.RESTART),
    HTTP_PORT("httpPort", "QUEEN_KV_HTTP_PORT", 6632, 1, 65_535, Applies.RESTART),
    RAFT_PORT("raftPort", "QUEEN_KV_RAFT_PORT", 6634, 1, 65_535, Applies.RESTART);

    /** How a new value takes effect. */
    public enum Applies {
        /** Cluster-wide, committed through the Raft log: every node switches at the same index. */
        LIVE,
        /** This node's own, read from the environment at start. */
        RESTART
    }

    public final String field;
    public final String env;
    public final long defaultValue;
    public final long min;
    public final long max;
    public final Applies applies;

    Setting(String field, String env, long defaultValue, long min, long max, Applies applies) {
        this.field = field;
        this.env = env;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.applies = applies;
    }

    /** The cluster-wide settings, in the order of {@link Settings}' components. */
    public static List<Setting> live() {
        return Arrays.stream(values()).filter(s -> s.applies == Applies.LIVE).toList();
    }

    public static Setting byField(String field) {
        for (Setting s : values()) if (s.field.equals(field)) return s;
        return null;
    }

    /** A problem with {@code value} for this setting, or null when it is in range. */
    public String problem(long value) {
        return value < min || value > max ? field + " must be from " + min + " to " + max + " (got " + value + ")" : null;
    }
}
