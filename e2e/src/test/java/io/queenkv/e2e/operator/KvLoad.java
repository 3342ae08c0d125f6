package io.queenkv.e2e.operator;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.client.GetResult;
import io.queenkv.client.Lifetime;
import io.queenkv.client.QueenKv;
import io.queenkv.client.QueenKvException;
import io.queenkv.client.QueenKvRefusedException;
import io.queenkv.client.WriteResult;

/**
 * A writer and a reader that run against the client Service's pods for the whole scenario run, through
 * the Java SDK. The endpoints are the Service's ready pods ({@code endpoints}, looked at again every
 * {@value #REFRESH_MS} ms: a new SDK client when they change, as a Service's endpoints change).
 *
 * <ul>
 *   <li>The writer puts {@code 1, 2, 3, …} to a few keys in turn (paced to stay below the node's
 *       default write rate) and records every acknowledged write (value and version). A write whose
 *       outcome is unknown (the SDK ran out of attempts) is counted, not retried.</li>
 *   <li>The reader reads the keys in turn and checks that no read goes backwards: per key, neither the
 *       version nor the value is below what an earlier read returned, nor below the last write
 *       acknowledged before the read began.</li>
 *   <li>{@link #verifyAll} reads every key at the end: each holds its last acknowledged write or a later one.</li>
 * </ul>
 */
final class KvLoad implements AutoCloseable {
    static final String NS = "e2e-load";
    static final int KEYS = 4;
    static final int REFRESH_MS = 300;
    private static final Duration WRITE_PACE = Duration.ofMillis(40);
    private static final Duration READ_PACE = Duration.ofMillis(20);

    record Acked(long value, long version) {}

    private final Supplier<List<String>> endpoints;
    /** How the SDK clients reach the pods (plain, or HTTPS trusting the cluster CA through the pod tunnel). */
    private final HttpClient http;
    private final AtomicReference<Client> current = new AtomicReference<>();
    private final Map<String, Acked> acked = new ConcurrentHashMap<>();
    private final Map<String, Acked> lastRead = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    final AtomicLong writes = new AtomicLong();
    final AtomicLong unknown = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong readFailures = new AtomicLong();
    final AtomicLong endpointChanges = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    private record Client(List<String> endpoints, QueenKv kv) {}

    KvLoad(Supplier<List<String>> endpoints, HttpClient http) {
        this.http = http;
        this.endpoints = endpoints;
    }

    KvLoad start() {
        running = true;
        threads.add(thread("kv-load-endpoints", this::refreshLoop));
        threads.add(thread("kv-load-writer", this::writeLoop));
        threads.add(thread("kv-load-reader", this::readLoop));
        return this;
    }

    private Thread thread(String name, Runnable r) {
        Thread t = new Thread(() -> {
            try {
                r.run();
            } catch (RuntimeException e) {
                violations.add(name + " died: " + e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void refreshLoop() {
        while (running) {
            try {
                List<String> e = endpoints.get();
                Client c = current.get();
                if (!e.isEmpty() && (c == null || !c.endpoints().equals(e))) {
                    current.set(new Client(e, QueenKv.builder().endpoints(e).httpClient(http).requestTimeout(Duration.ofSeconds(12))
                            .maxAttempts(4).build()));
                    endpointChanges.incrementAndGet();
                }
            } catch (RuntimeException e) {
                note(errors, "endpoints: " + e);
            }
            pause(Duration.ofMillis(REFRESH_MS));
        }
    }

    private void writeLoop() {
        long[] next = new long[KEYS];
        int i = 0;
        while (running) {
            Client c = current.get();
            if (c == null) {
                pause(Duration.ofMillis(50));
                continue;
            }
            int k = i++ % KEYS;
            String key = "k" + k;
            long value = ++next[k];
            try {
                WriteResult r = c.kv().put(NS, key, value, Lifetime.forever());
                if (r.applied()) {
                    acked.put(key, new Acked(value, r.version()));
                    writes.incrementAndGet();
                } else {
                    violations.add("put " + key + "=" + value + " (unconditional) was not applied: " + r);
                }
            } catch (QueenKvRefusedException e) {
                refused.incrementAndGet();
                note(errors, "write refused: " + e.status() + " " + e.reason());
            } catch (QueenKvException e) {
                unknown.incrementAndGet(); // may or may not have been applied: a later read may show it
                note(errors, "write unknown: " + e.getMessage());
            }
            pause(WRITE_PACE);
        }
    }

    private void readLoop() {
        int i = 0;
        while (running) {
            Client c = current.get();
            if (c == null) {
                pause(Duration.ofMillis(50));
                continue;
            }
            String key = "k" + (i++ % KEYS);
            Acked before = acked.get(key);
            try {
                GetResult<JsonNode> r = c.kv().get(NS, key);
                reads.incrementAndGet();
                check(key, before, r, "read");
            } catch (QueenKvException e) {
                readFailures.incrementAndGet();
                note(errors, "read failed: " + e.getMessage());
            }
            pause(READ_PACE);
        }
    }

    private void check(String key, Acked ackedBefore, GetResult<JsonNode> r, String what) {
        if (!r.found()) {
            if (ackedBefore != null) violations.add(what + " of " + key + " found nothing after write " + ackedBefore + " was acknowledged");
            return;
        }
        Acked seen = new Acked(r.value().asLong(), r.version());
        if (ackedBefore != null && (seen.version() < ackedBefore.version() || seen.value() < ackedBefore.value()))
            violations.add(what + " of " + key + " went back: " + seen + " after write " + ackedBefore + " was acknowledged");
        Acked prev = lastRead.get(key);
        if (prev != null && (seen.version() < prev.version() || seen.value() < prev.value()))
            violations.add(what + " of " + key + " went back: " + seen + " after an earlier read saw " + prev);
        lastRead.merge(key, seen, (a, b) -> b.version() >= a.version() ? b : a);
    }

    /** Violations so far (empty is good). */
    List<String> violations() { return List.copyOf(violations); }

    String summary() {
        return String.format("%d acknowledged writes, %d unknown, %d refused; %d reads, %d failed; %d endpoint sets; last errors %s",
                writes.get(), unknown.get(), refused.get(), reads.get(), readFailures.get(), endpointChanges.get(),
                errors.subList(Math.max(0, errors.size() - 3), errors.size()));
    }

    /** Stops the load, then reads every key: each must hold its last acknowledged write or a later one. */
    List<String> verifyAll() {
        stop();
        Client c = Objects.requireNonNull(current.get(), "the load never had endpoints");
        for (Map.Entry<String, Acked> e : acked.entrySet()) {
            GetResult<JsonNode> r = c.kv().get(NS, e.getKey());
            check(e.getKey(), e.getValue(), r, "final read");
        }
        return violations();
    }

    private void stop() {
        running = false;
        for (Thread t : threads) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void note(List<String> list, String s) {
        list.add(s);
        if (list.size() > 200) list.subList(0, 100).clear();
    }

    /** Pacing of the load loops (not a wait for a condition). */
    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis() + ThreadLocalRandom.current().nextInt(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
