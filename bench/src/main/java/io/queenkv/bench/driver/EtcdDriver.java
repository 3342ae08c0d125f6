package io.queenkv.bench.driver;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.queenkv.bench.load.BulkLoader;
import io.queenkv.bench.load.Workload;
import io.queenkv.bench.load.WorkloadSpec;

/**
 * etcd through jetcd, one client (one gRPC channel) per member. Where etcd has no call of the
 * workload's shape, the nearest equivalent is sent ({@link WorkloadSpec#etcdEquivalent}).
 */
public final class EtcdDriver implements SystemDriver {
    private static final ByteSequence SMALL_VALUE = bytes(KeySpace.text(KeySpace.SMALL_VALUE_BYTES));
    private static final ByteSequence LARGE_VALUE = bytes(KeySpace.text(KeySpace.LARGE_VALUE_BYTES));
    private static final ByteSequence CAS_KEY = key(KeySpace.CAS_KEY);
    private static final ByteSequence COUNTER_KEY = key(KeySpace.COUNTER_KEY);
    private static final GetOption SERIALIZABLE = GetOption.builder().withSerializable(true).build();
    private static final GetOption PAGE = GetOption.builder().isPrefix(true).withLimit(KeySpace.PAGE_SIZE).build();

    private final List<String> urls;
    private final List<Client> members;
    private final Path scratchDir;

    public EtcdDriver(List<String> memberUrls, Path scratchDir) {
        this.urls = List.copyOf(memberUrls);
        this.members = urls.stream().map(u -> Client.builder().endpoints(u).build()).toList();
        this.scratchDir = scratchDir;
    }

    @Override
    public String serverVersion() {
        return status(0).getVersion();
    }

    @Override
    public void preload() {
        KV kv = kv(leaderIndex());
        BulkLoader.load(KeySpace.READ_KEYS / KeySpace.LOAD_BATCH, 4, call -> putAll(kv, call, KeySpace::readKey));
        BulkLoader.load(KeySpace.PAGE_KEYS / KeySpace.LOAD_BATCH, 4, call -> putAll(kv, call, KeySpace::pageKey));
        kv.put(CAS_KEY, SMALL_VALUE).join();
        kv.put(COUNTER_KEY, bytes("0")).join();
    }

    private static CompletableFuture<TxnResponse> putAll(KV kv, int call, java.util.function.IntFunction<String> keyOf) {
        Op[] puts = new Op[KeySpace.LOAD_BATCH];
        for (int i = 0; i < puts.length; i++)
            puts[i] = Op.put(key(keyOf.apply(call * KeySpace.LOAD_BATCH + i)), SMALL_VALUE, PutOption.DEFAULT);
        return kv.txn().Then(puts).commit();
    }

    @Override
    public Optional<Workload> workload(WorkloadSpec spec, int inFlight) {
        KV leader = kv(leaderIndex());
        return switch (spec) {
            case PUT_1, PUT_64, PUT_256 -> Optional.of(slot -> leader.put(key(KeySpace.putKey()), SMALL_VALUE));
            case PUT_ALL_NODES_64 -> Optional.of(slot -> kv(slot).put(key(KeySpace.putKey()), SMALL_VALUE));
            case GET_LINEARIZABLE_1, GET_LINEARIZABLE_64 -> Optional.of(slot -> kv(slot).get(key(KeySpace.readKey())));
            case GET_SERIALIZABLE_64 -> Optional.of(slot -> kv(slot).get(key(KeySpace.readKey()), SERIALIZABLE));
            case CAS_1, CAS_64 -> {
                // The mod revision each slot last saw; a lost Txn reads the winner's in its Else branch.
                long[] seen = new long[inFlight];
                yield Optional.of(slot -> compareAndPut(leader, CAS_KEY, seen[slot], SMALL_VALUE)
                        .thenAccept(r -> seen[slot] = modRevisionAfter(r)));
            }
            case INCR_HOT_64 -> {
                Counter[] seen = new Counter[inFlight];
                for (int i = 0; i < inFlight; i++) seen[i] = new Counter(0, 0);
                yield Optional.of(slot -> increment(leader, seen, slot));
            }
            case PUT_64K_16 -> Optional.of(slot -> leader.put(key(KeySpace.largeKey()), LARGE_VALUE));
            case BATCH_16 -> Optional.of(slot -> {
                Op[] puts = new Op[KeySpace.BATCH_OPS];
                int base = KeySpace.batchBase();
                for (int i = 0; i < puts.length; i++) puts[i] = Op.put(key(KeySpace.batchKey(base, i)), SMALL_VALUE, PutOption.DEFAULT);
                return leader.txn().Then(puts).commit();
            });
            case GET_PREFIX_100 -> {
                ByteSequence prefix = key(KeySpace.PAGE_PREFIX);
                yield Optional.of(slot -> leader.get(prefix, PAGE));
            }
        };
    }

    /** A counter value and the mod revision it was read at. */
    private record Counter(long value, long modRevision) {}

    /** etcd has no increment: CAS value+1 against the last seen revision, re-reading and retrying until it wins. */
    private static CompletableFuture<Void> increment(KV kv, Counter[] seen, int slot) {
        Counter last = seen[slot];
        return compareAndPut(kv, COUNTER_KEY, last.modRevision(), bytes(Long.toString(last.value() + 1)))
                .thenCompose(r -> {
                    if (r.isSucceeded()) {
                        seen[slot] = new Counter(last.value() + 1, r.getHeader().getRevision());
                        return CompletableFuture.completedFuture(null);
                    }
                    var current = r.getGetResponses().get(0).getKvs().get(0);
                    seen[slot] = new Counter(Long.parseLong(current.getValue().toString(StandardCharsets.UTF_8)), current.getModRevision());
                    return increment(kv, seen, slot);
                });
    }

    private static CompletableFuture<TxnResponse> compareAndPut(KV kv, ByteSequence key, long modRevision, ByteSequence value) {
        return kv.txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(modRevision)))
                .Then(Op.put(key, value, PutOption.DEFAULT))
                .Else(Op.get(key, GetOption.DEFAULT))
                .commit();
    }

    private static long modRevisionAfter(TxnResponse r) {
        return r.isSucceeded() ? r.getHeader().getRevision() : r.getGetResponses().get(0).getKvs().get(0).getModRevision();
    }

    @Override
    public Duration loadBulk(int count) {
        KV kv = kv(leaderIndex());
        int calls = (count + KeySpace.LOAD_BATCH - 1) / KeySpace.LOAD_BATCH;
        return BulkLoader.load(calls, KeySpace.LOAD_IN_FLIGHT, call -> {
            int from = call * KeySpace.LOAD_BATCH;
            int to = Math.min(count, from + KeySpace.LOAD_BATCH);
            Op[] puts = new Op[to - from];
            for (int i = from; i < to; i++) puts[i - from] = Op.put(key(KeySpace.bulkKey(i)), SMALL_VALUE, PutOption.DEFAULT);
            return kv.txn().Then(puts).commit();
        });
    }

    @Override
    public int leaderIndex() {
        for (int attempt = 0; attempt < 100; attempt++) {
            for (int i = 0; i < urls.size(); i++) {
                try {
                    StatusResponse s = status(i);
                    if (s.getLeader() != 0 && s.getLeader() == s.getHeader().getMemberId()) return i;
                } catch (RuntimeException e) {
                    // that member is not answering; try the next
                }
            }
            sleepMillis(100);
        }
        throw new IllegalStateException("no etcd member is leader");
    }

    @Override
    public Duration snapshotOnLeader() {
        int leader = leaderIndex();
        Path file = scratchDir.resolve("etcd-snapshot.db");
        long began = System.nanoTime();
        try (OutputStream out = Files.newOutputStream(file)) {
            members.get(leader).getMaintenanceClient().snapshot(out).get(5, TimeUnit.MINUTES);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("etcd snapshot failed", e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - began);
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a scratch file under bench/target
        }
        return took;
    }

    private StatusResponse status(int member) {
        try {
            return members.get(member).getMaintenanceClient().statusMember(urls.get(member)).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException("status of " + urls.get(member) + " failed", e);
        }
    }

    private KV kv(int slotOrMember) {
        return members.get(slotOrMember % members.size()).getKVClient();
    }

    private static ByteSequence key(String name) {
        return bytes(KeySpace.ETCD_PREFIX + name);
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
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
        members.forEach(Client::close);
    }
}
