package io.queenkv.node.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

import io.queenkv.node.access.Access;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;

/**
 * Bounds on calls in progress: per caller, and for the whole node. A caller is a tenant when
 * authentication is on; with it off every call is the one default tenant's, so the caller is the
 * client's address instead. A call takes a slot after authentication and before its body is read,
 * and holds it until its answer is written, so one caller's slow bodies, stalled uploads or unread
 * answers hold at most {@code perCaller} request threads, and all callers together at most
 * {@code perNode} (rows of the settings table, {@code QUEEN_KV_MAX_CALLS_PER_TENANT} and
 * {@code QUEEN_KV_MAX_CALLS_PER_NODE}): the other callers, {@code /healthz} and the refusals
 * themselves always find a thread. A call over a bound is refused at once, never queued: 429
 * {@code rate_limited} when its caller is at its bound (the caller's own doing, like the rate
 * limit), 503 {@code kv_retry} when the node is (another node may have room). Both say
 * {@code Retry-After: 1}.
 */
final class CallSlots {
    private final int perCaller;
    private final int perNode;
    private final boolean byAddress;
    private final Semaphore node;
    /** Calls in progress per caller; a caller with none has no entry, so the map holds only callers now calling. */
    private final ConcurrentHashMap<String, Integer> inProgress = new ConcurrentHashMap<>();

    /** @param byAddress whether callers are told apart by address (authentication off) rather than by tenant */
    CallSlots(int perCaller, int perNode, boolean byAddress) {
        this.perCaller = perCaller;
        this.perNode = perNode;
        this.byAddress = byAddress;
        this.node = new Semaphore(perNode);
    }

    /** A taken slot; closing it gives it back (once). */
    interface Slot extends AutoCloseable {
        @Override
        void close();
    }

    /** Takes a slot for an authenticated caller calling from {@code address}. */
    Slot take(Access.Caller caller, String address) {
        String key = byAddress ? "address " + address : "tenant " + caller.tenant();
        boolean[] taken = {false};
        inProgress.compute(key, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= perCaller) return n;
            taken[0] = true;
            return now + 1;
        });
        if (!taken[0])
            throw new Refusal(Reason.RATE_LIMITED, (byAddress ? "this client address" : "this tenant") + " has " + perCaller
                    + " calls in progress on this node already");
        if (!node.tryAcquire()) {
            release(key);
            throw new Refusal(Reason.KV_RETRY, "this node has " + perNode + " calls in progress already; try again or another node");
        }
        return new Slot() {
            private boolean open = true;

            @Override
            public synchronized void close() {
                if (!open) return;
                open = false;
                node.release();
                release(key);
            }
        };
    }

    private void release(String key) {
        inProgress.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
    }
}
