package io.queenkv.bench.load;

import java.util.concurrent.CompletableFuture;

/**
 * One workload against one system: {@link #next} sends the next operation of in-flight slot
 * {@code slot} and completes when it is answered. The load generator calls it again for the same slot
 * as soon as the future completes (a closed loop), so a slot has one operation in flight at a time
 * and may keep per-slot state (the version a CAS last saw).
 */
@FunctionalInterface
public interface Workload {
    CompletableFuture<?> next(int slot);
}
