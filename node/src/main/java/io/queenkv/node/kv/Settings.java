package io.queenkv.node.kv;

import java.util.ArrayList;
import java.util.List;

/**
 * The cluster-wide limits. Environment values seed a new cluster; afterwards they change only
 * through the log, so every node switches at the same index. Rates are calls per second per tenant
 * and node; the burst is twice the rate.
 */
public record Settings(int maxOpsPerCall, int maxKeysPerCall, int maxValueBytes, long maxBodyBytes, int writeRate,
                       int readRate) {
    public static final int KEYS_PER_CALL_CEILING = 4096;

    public static final Settings DEFAULTS = new Settings(256, 1024, 65_536, 32L * 1024 * 1024, 100, 200);

    /** Human-readable problems; empty when the settings are usable. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (maxOpsPerCall < 1) problems.add("maxOpsPerCall must be at least 1");
        if (maxKeysPerCall < 1 || maxKeysPerCall > KEYS_PER_CALL_CEILING)
            problems.add("maxKeysPerCall must be between 1 and " + KEYS_PER_CALL_CEILING);
        if (maxValueBytes < 1) problems.add("maxValueBytes must be at least 1");
        if (maxBodyBytes < 1024) problems.add("maxBodyBytes must be at least 1024");
        if (maxBodyBytes > Integer.MAX_VALUE - 8) problems.add("maxBodyBytes must be below 2 GiB");
        if (writeRate < 1) problems.add("writeRate must be at least 1");
        if (readRate < 1) problems.add("readRate must be at least 1");
        return problems;
    }
}
