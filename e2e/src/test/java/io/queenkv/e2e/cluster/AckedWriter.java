package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.e2e.harness.KvHttp;

/**
 * A background writer for the scenarios: it puts fresh keys {@code <prefix><n>} = {@code n}
 * ({@code forever}), each key once, round-robin over the given node URLs (moving on to the next
 * URL after any failure), and keeps the list of acknowledged writes with their versions. A write
 * whose answer never came is counted as unknown and not retried. {@link #assertNoneLost} reads every
 * acknowledged key back linearizably.
 */
final class AckedWriter implements AutoCloseable {
    private final String ns;
    private final String prefix;
    private final Supplier<List<String>> urls;
    private final KvHttp http;
    private final Map<String, Long> acked = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> ackTimes = new ConcurrentLinkedQueue<>();
    private final AtomicInteger unknown = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicLong lastAck = new AtomicLong(System.nanoTime());
    private final AtomicLong maxGapNanos = new AtomicLong();
    private volatile boolean running;
    private volatile Throwable failure;
    private Thread thread;

    AckedWriter(String ns, String prefix, Supplier<List<String>> urls, Duration timeout) {
        this.ns = ns;
        this.prefix = prefix;
        this.urls = urls;
        this.http = new KvHttp(timeout);
    }

    AckedWriter start() {
        running = true;
        lastAck.set(System.nanoTime());
        thread = new Thread(this::loop, "acked-writer-" + prefix);
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void loop() {
        int n = 0, target = 0;
        try {
            while (running) {
                List<String> u = urls.get();
                if (u.isEmpty()) {
                    pause(50);
                    continue;
                }
                String url = u.get(Math.floorMod(target, u.size()));
                String key = prefix + (++n);
                KvHttp.Reply r = http.put(url, ns, key, KvHttp.value(n));
                long now = System.nanoTime();
                if (r.ok() && r.result(0).path("applied").asBoolean()) {
                    acked.put(key, r.result(0).path("version").asLong());
                    ackTimes.add(now);
                    long prev = lastAck.getAndSet(now);
                    maxGapNanos.accumulateAndGet(now - prev, Math::max);
                    target++; // spread the writes over every node
                } else {
                    if (r.unknown()) unknown.incrementAndGet();
                    else refused.incrementAndGet();
                    target++;
                    pause(50); // pace the retries while the cluster is unavailable
                }
                pause(5);
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms); // pacing, not a wait
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the writer and waits for its last call to finish. */
    AckedWriter stop() {
        running = false;
        if (thread != null) {
            try {
                thread.join(Duration.ofSeconds(15).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (failure != null) throw new AssertionError("the writer failed", failure);
        return this;
    }

    @Override
    public void close() {
        running = false;
    }

    /** The writes acknowledged so far, key to version. */
    Map<String, Long> acked() {
        return Map.copyOf(acked);
    }

    int ackedCount() {
        return acked.size();
    }

    int unknownCount() {
        return unknown.get();
    }

    /** Acknowledged writes that ended at or after {@code sinceNanos}. */
    long acksSince(long sinceNanos) {
        return ackTimes.stream().filter(t -> t >= sinceNanos).count();
    }

    /** Waits until at least {@code n} writes were acknowledged after {@code sinceNanos}; returns the seconds it took. */
    double awaitAcksSince(long sinceNanos, int n, Duration timeout) {
        await(n + " acknowledged writes of " + prefix).atMost(timeout).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (failure != null) throw new AssertionError("the writer failed", failure);
                    return acksSince(sinceNanos) >= n;
                });
        long first = ackTimes.stream().filter(t -> t >= sinceNanos).sorted().skip(n - 1).findFirst().orElseThrow();
        return (first - sinceNanos) / 1e9;
    }

    /** The longest time between two consecutive acknowledgements so far. */
    Duration maxGap() {
        return Duration.ofNanos(maxGapNanos.get());
    }

    /** Reads every acknowledged key on {@code url}: each must be there with its value and version. */
    void assertNoneLost(String url) {
        List<String> keys = new ArrayList<>(acked.keySet());
        Map<String, JsonNode> rows = ClusterChecks.readAll(url, ns, keys);
        List<String> lost = new ArrayList<>();
        for (String key : keys) {
            JsonNode row = rows.get(key);
            long n = Long.parseLong(key.substring(prefix.length()));
            if (row == null || row.path("version").asLong() != acked.get(key) || row.path("value").asLong() != n)
                lost.add(key + " (acked v" + acked.get(key) + ", read " + row + ")");
        }
        assertThat(lost).as("acknowledged writes of %s missing or changed on %s (%d acked, %d unknown)",
                prefix, url, keys.size(), unknown.get()).isEmpty();
        ClusterChecks.say("%s: all %d acknowledged writes read back on %s (%d unknown, %d refused)", prefix,
                keys.size(), url, unknown.get(), refused.get());
    }
}
