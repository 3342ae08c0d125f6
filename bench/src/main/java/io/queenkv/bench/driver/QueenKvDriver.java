package io.queenkv.bench.driver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.queenkv.bench.load.BulkLoader;
import io.queenkv.bench.load.Workload;
import io.queenkv.bench.load.WorkloadSpec;
import io.queenkv.client.Batch;
import io.queenkv.client.Lifetime;
import io.queenkv.client.Op;
import io.queenkv.client.QueenKv;

/**
 * Queen KV through our SDK, one client per member. Retries are off (one attempt per call), so a
 * refused or unavailable call counts as an error instead of hiding in a latency. Every write call
 * still carries the SDK's Idempotency-Key, as it does for users. Values are written {@code forever},
 * as etcd's are (no lease).
 */
public final class QueenKvDriver implements SystemDriver {
    private static final String NS = KeySpace.NAMESPACE;
    private static final Lifetime FOREVER = Lifetime.forever();
    /** 254 characters: 256 bytes as compact JSON. */
    private static final String SMALL_VALUE = KeySpace.text(KeySpace.SMALL_VALUE_BYTES - 2);
    private static final String LARGE_VALUE = KeySpace.text(KeySpace.LARGE_VALUE_BYTES - 2);

    private final List<String> urls;
    private final List<QueenKv> members;
    private final HttpClient admin = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();

    private final String serverVersion;

    /** {@code serverVersion}: the node has no version route, so the caller says which build it started. */
    public QueenKvDriver(List<String> memberUrls, String serverVersion) {
        this.urls = List.copyOf(memberUrls);
        this.serverVersion = serverVersion;
        // Answers complete on each client's I/O thread (QueenKv.Builder#executor): the load generator's
        // callbacks only record and send the next call, so nothing blocks there.
        this.members = urls.stream().map(u -> QueenKv.builder().endpoints(u).maxAttempts(1).executor(Runnable::run).build()).toList();
    }

    @Override
    public String serverVersion() {
        return serverVersion;
    }

    @Override
    public void preload() {
        QueenKv kv = members.get(leaderIndex());
        BulkLoader.load(KeySpace.READ_KEYS / KeySpace.LOAD_BATCH, 4, call -> {
            Batch b = kv.batch();
            for (int i = 0; i < KeySpace.LOAD_BATCH; i++) b.put(NS, KeySpace.readKey(call * KeySpace.LOAD_BATCH + i), SMALL_VALUE, FOREVER);
            return b.executeAsync();
        });
        BulkLoader.load(KeySpace.PAGE_KEYS / KeySpace.LOAD_BATCH, 4, call -> {
            Batch b = kv.batch();
            for (int i = 0; i < KeySpace.LOAD_BATCH; i++) b.put(NS, KeySpace.pageKey(call * KeySpace.LOAD_BATCH + i), SMALL_VALUE, FOREVER);
            return b.executeAsync();
        });
        kv.put(NS, KeySpace.CAS_KEY, SMALL_VALUE, FOREVER);
        kv.put(NS, KeySpace.COUNTER_KEY, 0, FOREVER);
    }

    @Override
    public Optional<Workload> workload(WorkloadSpec spec, int inFlight) {
        QueenKv leader = members.get(leaderIndex());
        return switch (spec) {
            case PUT_1, PUT_64, PUT_256 -> Optional.of(slot -> leader.async().put(NS, KeySpace.putKey(), SMALL_VALUE, FOREVER));
            case PUT_ALL_NODES_64 -> Optional.of(slot -> member(slot).async().put(NS, KeySpace.putKey(), SMALL_VALUE, FOREVER));
            case GET_LINEARIZABLE_1, GET_LINEARIZABLE_64 -> Optional.of(slot -> member(slot).async().get(NS, KeySpace.readKey()));
            case GET_SERIALIZABLE_64 -> Optional.empty(); // every Queen KV read is linearizable
            case CAS_1, CAS_64 -> {
                // The version each slot last saw; a lost CAS answers the winner's version, the next try uses it.
                long[] seen = new long[inFlight];
                yield Optional.of(slot -> leader.async().put(NS, KeySpace.CAS_KEY, SMALL_VALUE, FOREVER, seen[slot])
                        .thenAccept(r -> seen[slot] = r.version()));
            }
            case INCR_HOT_64 -> Optional.of(slot -> leader.async().incr(NS, KeySpace.COUNTER_KEY, 1, FOREVER));
            case PUT_64K_16 -> Optional.of(slot -> leader.async().put(NS, KeySpace.largeKey(), LARGE_VALUE, FOREVER));
            case BATCH_16 -> Optional.of(slot -> {
                Batch b = leader.batch();
                int base = KeySpace.batchBase();
                for (int i = 0; i < KeySpace.BATCH_OPS; i++) b.put(NS, KeySpace.batchKey(base, i), SMALL_VALUE, FOREVER);
                return b.executeAsync();
            });
            case GET_PREFIX_100 -> {
                Op.GetPrefix page = Op.getPrefix(NS, KeySpace.PAGE_PREFIX).limit(KeySpace.PAGE_SIZE);
                yield Optional.of(slot -> leader.async().getPrefix(page, JsonNode.class));
            }
        };
    }

    private QueenKv member(int slot) {
        return members.get(slot % members.size());
    }

    @Override
    public Duration loadBulk(int count) {
        QueenKv kv = members.get(leaderIndex());
        int calls = (count + KeySpace.LOAD_BATCH - 1) / KeySpace.LOAD_BATCH;
        return BulkLoader.load(calls, KeySpace.LOAD_IN_FLIGHT, call -> {
            Batch b = kv.batch();
            for (int i = call * KeySpace.LOAD_BATCH; i < Math.min(count, (call + 1) * KeySpace.LOAD_BATCH); i++)
                b.put(NS, KeySpace.bulkKey(i), SMALL_VALUE, FOREVER);
            return b.executeAsync();
        });
    }

    @Override
    public int leaderIndex() {
        // Any member knows the leader once the cluster is ready; ask them in turn until one does.
        for (int attempt = 0; attempt < 100; attempt++) {
            for (int i = 0; i < urls.size(); i++) {
                try {
                    JsonNode leaderId = adminCall("GET", "/api/v1/cluster", i).path("leaderId");
                    if (leaderId.isTextual()) {
                        int index = Integer.parseInt(leaderId.asText().substring(1)) - 1; // members are n1..n3
                        if (index >= 0 && index < urls.size()) return index;
                    }
                } catch (UncheckedIOException e) {
                    // that member is not answering; try the next
                }
            }
            sleepMillis(100);
        }
        throw new IllegalStateException("no Queen KV member knows a leader");
    }

    @Override
    public Duration snapshotOnLeader() {
        int leader = leaderIndex();
        long began = System.nanoTime();
        adminCall("POST", "/api/v1/admin/snapshot", leader);
        return Duration.ofNanos(System.nanoTime() - began);
    }

    private JsonNode adminCall(String method, String path, int member) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(urls.get(member) + path))
                .timeout(Duration.ofMinutes(2))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
        try {
            HttpResponse<String> response = admin.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200)
                throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
            return json.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        members.forEach(QueenKv::close);
    }
}
