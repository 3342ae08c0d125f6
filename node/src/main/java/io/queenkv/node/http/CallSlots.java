package io.queenkv.node.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;

/**
 * Bounds on calls in progress: per tenant, and for the whole node. A call takes a slot after
 * authentication and before its body is read, and holds it until its answer is written, so one
 * tenant's slow bodies, stalled uploads or unread answers hold at most {@code perTenant} request
 * threads, and all tenants together at most {@code perNode} (rows of the settings table,
 * {@code QUEEN_KV_MAX_CALLS_PER_TENANT} and {@code QUEEN_KV_MAX_CALLS_PER_NODE}): the other tenants, {@code /healthz}
 * and the refusals themselves always find a thread. A call over a bound is refused at once, never
 * queued: 429 {@code rate_limited} when its tenant is at its bound (the tenant's own doing, like the
 * rate limit), 503 {@code kv_retry} when the node is (another node may have room). Both say
 * {@code Retry-After: 1}.
 */
final class CallSlots {
    private final int perTenant;
    private final int perNode;
    private final Semaphore node;
    private final ConcurrentHashMap<String, Semaphore> tenants = new ConcurrentHashMap<>();

    CallSlots(int perTenant, int perNode) {
        this.perTenant = perTenant;
        this.perNode = perNode;
        this.node = new Semaphore(perNode);
    }

    /** A taken slot; closing it gives it back (once). */
    interface Slot extends AutoCloseable {
        @Override
        void close();
    }

    Slot take(String tenant) {
        // One semaphore per tenant the node has seen: tenants come from the tokens file (or the one
        // default tenant), so the map is as small as that file.
        Semaphore own = tenants.computeIfAbsent(tenant, t -> new Semaphore(perTenant));
        if (!own.tryAcquire())
            throw new Refusal(Reason.RATE_LIMITED, "this tenant has " + perTenant + " calls in progress on this node already");
        if (!node.tryAcquire()) {
            own.release();
            throw new Refusal(Reason.KV_RETRY, "this node has " + perNode + " calls in progress already; try again or another node");
        }
        return new Slot() {
            private boolean open = true;

            @Override
            public synchronized void close() {
                if (!open) return;
                open = false;
                node.release();
                own.release();
            }
        };
    }
}
