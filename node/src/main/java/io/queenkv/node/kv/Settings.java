package io.queenkv.node.kv;

import java.util.ArrayList;
import java.util.List;

/**
 * The cluster-wide limits. Environment values seed a new cluster; afterwards they change only
 * through the log, so every node switches at the same index. Rates are calls per second per tenant
 * and node; the burst is twice the rate. Bounds and defaults are rows of {@link Setting}.
 */
public record Settings(int maxOpsPerCall, int maxKeysPerCall, int maxValueBytes, long maxBodyBytes, int writeRate,
                       int readRate) {
    public static final int KEYS_PER_CALL_CEILING = (int) Setting.MAX_KEYS_PER_CALL.max;

    public static final Settings DEFAULTS = new Settings((int) Setting.MAX_OPS_PER_CALL.defaultValue,
            (int) Setting.MAX_KEYS_PER_CALL.defaultValue, (int) Setting.MAX_VALUE_BYTES.defaultValue,
            Setting.MAX_BODY_BYTES.defaultValue, (int) Setting.WRITE_RATE.defaultValue, (int) Setting.READ_RATE.defaultValue);

    /** The value of one cluster-wide setting. */
    public long value(Setting setting) {
        return switch (setting) {
            case MAX_OPS_PER_CALL -> maxOpsPerCall;
            case MAX_KEYS_PER_CALL -> maxKeysPerCall;
            case MAX_VALUE_BYTES -> maxValueBytes;
            case MAX_BODY_BYTES -> maxBodyBytes;
            case WRITE_RATE -> writeRate;
            case READ_RATE -> readRate;
            default -> throw new IllegalArgumentException(setting + " is not a cluster-wide setting");
        };
    }

    /**
     * A copy with one setting changed. The value must already be in range (see {@link #problems});
     * out-of-range values are clamped to the int they are stored in, never wrapped.
     */
    public Settings with(Setting setting, long value) {
        int v = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, value));
        return switch (setting) {
            case MAX_OPS_PER_CALL -> new Settings(v, maxKeysPerCall, maxValueBytes, maxBodyBytes, writeRate, readRate);
            case MAX_KEYS_PER_CALL -> new Settings(maxOpsPerCall, v, maxValueBytes, maxBodyBytes, writeRate, readRate);
            case MAX_VALUE_BYTES -> new Settings(maxOpsPerCall, maxKeysPerCall, v, maxBodyBytes, writeRate, readRate);
            case MAX_BODY_BYTES -> new Settings(maxOpsPerCall, maxKeysPerCall, maxValueBytes, value, writeRate, readRate);
            case WRITE_RATE -> new Settings(maxOpsPerCall, maxKeysPerCall, maxValueBytes, maxBodyBytes, v, readRate);
            case READ_RATE -> new Settings(maxOpsPerCall, maxKeysPerCall, maxValueBytes, maxBodyBytes, writeRate, v);
            default -> throw new IllegalArgumentException(setting + " is not a cluster-wide setting");
        };
    }

    /** Human-readable problems; empty when every setting is within its bounds. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        for (Setting s : Setting.live()) {
            String problem = s.problem(value(s));
            if (problem != null) problems.add(problem);
        }
        return problems;
    }
}
