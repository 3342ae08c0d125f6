package io.queenkv.node.kv;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import io.queenkv.node.kv.Op.Check;
import io.queenkv.node.kv.Op.Delete;
import io.queenkv.node.kv.Op.Get;
import io.queenkv.node.kv.Op.GetMany;
import io.queenkv.node.kv.Op.GetPrefix;
import io.queenkv.node.kv.Op.Incr;
import io.queenkv.node.kv.Op.Put;
import io.queenkv.node.kv.Op.PutIfAbsent;
import io.queenkv.node.kv.Outcome.Completed;
import io.queenkv.node.kv.Outcome.IdempotencyKeyReused;
import io.queenkv.node.kv.Outcome.PreconditionFailed;
import io.queenkv.node.kv.Result.GetManyResult;
import io.queenkv.node.kv.Result.GetPrefixResult;
import io.queenkv.node.kv.Result.GetResult;
import io.queenkv.node.kv.Result.ReadRow;
import io.queenkv.node.kv.Result.WriteResult;

/**
 * The replicated state and every rule of the contract that decides an answer. Deterministic: no
 * clock, no I/O, no threads. {@link #apply} runs each committed log entry in order on every node;
 * {@link #read} answers a read-only call from local state. Not thread-safe: the caller serializes
 * {@code apply} against {@code read}.
 */
public final class KvEngine {
    /** Values read per call before getMany/getPrefix answer {@code truncated:true}. */
    public static final long READ_BUDGET_BYTES = 4L * 1024 * 1024;
    /** How long a write call's answer is kept for retries with the same Idempotency-Key. */
    public static final long IDEMPOTENCY_RETENTION_MICROS = 10L * 60 * 1_000_000;

    record Scope(String tenant, String ns) {}

    /** A row waiting for the sweep; ordered by expiry first. */
    record Due(long expiresAt, String tenant, String ns, String key) {
        static final Comparator<Due> ORDER = Comparator.comparingLong(Due::expiresAt)
                .thenComparing(Due::tenant).thenComparing(Due::ns).thenComparing(Due::key);
    }

    record IdempotencyId(String tenant, String key) {}

    /**
     * A recorded answer, held encoded ({@link OutcomeCodec}) with the call's fingerprint as bytes
     * ({@link Fingerprint}): records outnumber rows when every write carries a key (the SDK's do) and
     * are kept 10 minutes, so they stay compact in memory and every snapshot copies their bytes instead
     * of encoding them again. Decoded only when a retry asks, with the retry's ops: the same
     * fingerprint, so the same ops, which fill in an answer recorded {@link AnswerForm#AS_SENT}
     * (without the values the call sent, which it would otherwise copy).
     */
    record IdempotencyRecord(byte[] fingerprint, byte[] encodedOutcome, long expiresAt) {
        Outcome outcome(List<Op> ops) {
            return OutcomeCodec.decode(encodedOutcome, ops);
        }
    }

    final Map<Scope, NavigableMap<String, Row>> spaces = new HashMap<>();
    final NavigableSet<Due> dueRows = new TreeSet<>(Due.ORDER);
    /** Insertion order is expiry order, because entry instants never go backwards. */
    final LinkedHashMap<IdempotencyId, IdempotencyRecord> idempotency = new LinkedHashMap<>();
    /**
     * One String per tenant for the records' ids: every log entry decodes its tenant afresh, and
     * records are many. Derived (not in snapshots); tenants are the few the node's tokens name.
     */
    private final Map<String, String> tenantNames = new HashMap<>();
    long nextVersion = 1;
    long lastInstant = 0;
    Settings settings;
    long settingsIndex = 0;
    private long keyCount = 0;
    private long valueBytes = 0;

    /**
     * The whole state at one log index, for a snapshot: taken in time linear in the number of rows
     * (references only — rows, values and idempotency records are immutable, so the copy shares
     * them), then written out while the engine goes on applying entries.
     */
    public record Frozen(long nextVersion, long lastInstant, long settingsIndex, Settings settings, long keyCount,
                         List<FrozenSpace> spaces, List<Map.Entry<IdempotencyId, IdempotencyRecord>> idempotency) {}

    /** One tenant's namespace in a {@link Frozen} state: its keys and rows, in key order. */
    public record FrozenSpace(Scope scope, String[] keys, Row[] rows) {}

    public Frozen freeze() {
        List<FrozenSpace> frozen = new ArrayList<>(spaces.size());
        for (Map.Entry<Scope, NavigableMap<String, Row>> space : spaces.entrySet()) {
            NavigableMap<String, Row> rows = space.getValue();
            String[] keys = new String[rows.size()];
            Row[] values = new Row[rows.size()];
            int i = 0;
            for (Map.Entry<String, Row> e : rows.entrySet()) {
                keys[i] = e.getKey();
                values[i++] = e.getValue();
            }
            frozen.add(new FrozenSpace(space.getKey(), keys, values));
        }
        List<Map.Entry<IdempotencyId, IdempotencyRecord>> records = new ArrayList<>(idempotency.size());
        for (Map.Entry<IdempotencyId, IdempotencyRecord> e : idempotency.entrySet()) records.add(Map.entry(e.getKey(), e.getValue()));
        return new Frozen(nextVersion, lastInstant, settingsIndex, settings, keyCount, List.copyOf(frozen), records);
    }

    /** A fresh store whose settings are {@code seed} until settings are committed through the log. */
    public KvEngine(Settings seed) {
        this.settings = seed;
    }

    public Settings settings() { return settings; }

    /** The log index of the entry that put the settings in force; 0 while the seed is in force. */
    public long settingsIndex() { return settingsIndex; }

    /** The instant of the last applied entry (epoch microseconds). */
    public long lastInstant() { return lastInstant; }

    /** Stored rows, expired ones not yet swept included. */
    public long keyCount() { return keyCount; }

    /** Compact JSON bytes of the stored values. */
    public long valueBytes() { return valueBytes; }

    /** Recorded answers of write calls with an {@code Idempotency-Key}, kept for retries and not yet forgotten. */
    public int idempotencyRecords() { return idempotency.size(); }

    /** Applies one committed log entry at {@code index}; a write call's answer is recorded in full. */
    public Outcome apply(long index, Entry entry) {
        return apply(index, entry, AnswerForm.FULL);
    }

    /**
     * Applies one committed log entry at {@code index}: a write call of a {@link Entry.WriteCalls} group (each as an
     * entry of its own) records its answer in the group's form ({@link Entry.WriteCalls#answers}).
     */
    public Outcome apply(long index, Entry entry, AnswerForm recorded) {
        if (entry instanceof Entry.WriteCalls)
            throw new IllegalArgumentException("the calls of a group apply one by one, each as an entry of its own");
        long now = Math.max(entry.instant(), lastInstant);
        lastInstant = now;
        forgetIdempotencyRecords(now);
        if (entry instanceof Entry.WriteCall call) return applyCall(call, now, recorded);
        if (entry instanceof Entry.Sweep sweep) {
            sweep(now, sweep.maxRows());
        } else if (entry instanceof Entry.ChangeSettings change) {
            settings = change.settings();
            settingsIndex = index;
        } else if (entry instanceof Entry.SeedSettings seed && settingsIndex == 0) {
            settings = seed.settings();
            settingsIndex = index;
        }
        return new Completed(List.of());
    }

    /** Answers a read-only call as of {@code now}, which never goes behind the last applied entry. */
    public Completed read(String tenant, List<Op> ops, long now) {
        for (Op op : ops) if (op.isWrite()) throw new IllegalArgumentException("read() takes reads only: " + op.name());
        return (Completed) new Evaluation(tenant, Math.max(now, lastInstant)).run(ops);
    }

    /** Whether any row is expired at {@code now} and waits for a sweep. */
    public boolean hasDueRows(long now) {
        return !dueRows.isEmpty() && dueRows.first().expiresAt() <= now;
    }

    private Outcome applyCall(Entry.WriteCall call, long now, AnswerForm form) {
        IdempotencyId id = call.idempotencyKey() == null ? null : idempotencyId(call.tenant(), call.idempotencyKey());
        if (id != null) {
            IdempotencyRecord recorded = idempotency.get(id);
            if (recorded != null)
                return Fingerprint.matches(recorded.fingerprint(), call.fingerprint()) ? recorded.outcome(call.ops()) : new IdempotencyKeyReused();
        }
        Outcome outcome = new Evaluation(call.tenant(), now).run(call.ops());
        if (id != null)
            recordAnswer(id, call.fingerprint(),
                    OutcomeCodec.encode(outcome, form == AnswerForm.AS_SENT ? call.ops() : null), now + IDEMPOTENCY_RETENTION_MICROS);
        return outcome;
    }

    /** The id of a tenant's Idempotency-Key, with the one String the engine holds for that tenant. */
    IdempotencyId idempotencyId(String tenant, String idempotencyKey) {
        return new IdempotencyId(tenantNames.computeIfAbsent(tenant, t -> t), idempotencyKey);
    }

    /** Records a write call's answer for retries; also how a snapshot's records come back. */
    void recordAnswer(IdempotencyId id, String fingerprint, byte[] encodedOutcome, long expiresAt) {
        idempotency.put(id, new IdempotencyRecord(Fingerprint.compact(fingerprint), encodedOutcome, expiresAt));
    }

    private void forgetIdempotencyRecords(long now) {
        Iterator<IdempotencyRecord> it = idempotency.values().iterator();
        while (it.hasNext() && it.next().expiresAt() <= now) it.remove();
    }

    private void sweep(long now, int maxRows) {
        for (int removed = 0; removed < maxRows && hasDueRows(now); removed++) {
            Due due = dueRows.first();
            replace(new Scope(due.tenant(), due.ns()), due.key(), null);
        }
    }

    /** Puts {@code row} (or removes the key when null), keeping the expiry index and counters true. */
    private Row replace(Scope scope, String key, Row row) {
        NavigableMap<String, Row> space = spaces.computeIfAbsent(scope, s -> new TreeMap<>(KeyOrder.BYTES));
        Row previous = row == null ? space.remove(key) : space.put(key, row);
        if (previous != null) {
            keyCount--;
            valueBytes -= previous.value().utf8Length();
            if (!previous.forever()) dueRows.remove(new Due(previous.expiresAt(), scope.tenant(), scope.ns(), key));
        }
        if (row != null) {
            keyCount++;
            valueBytes += row.value().utf8Length();
            if (!row.forever()) dueRows.add(new Due(row.expiresAt(), scope.tenant(), scope.ns(), key));
        }
        if (space.isEmpty()) spaces.remove(scope);
        return previous;
    }

    /** Restores a row from a snapshot. */
    void restoreRow(String tenant, String ns, String key, Row row) {
        replace(new Scope(tenant, ns), key, row);
    }

    /**
     * One call evaluated against the store. Writes go straight into the store with an undo log, so
     * the call's later reads see them, and a lost {@code required} op rolls them all back.
     */
    private final class Evaluation {
        private record Undo(Scope scope, String key, Row previous) {}

        private final String tenant;
        private final long now;
        private final List<Undo> undo = new ArrayList<>();
        private final long versionAtStart = nextVersion;
        private long readBudget = READ_BUDGET_BYTES;

        Evaluation(String tenant, long now) {
            this.tenant = tenant;
            this.now = now;
        }

        Outcome run(List<Op> ops) {
            List<Result> results = new ArrayList<>(ops.size());
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                Result result;
                try {
                    result = evaluate(i, op);
                } catch (RuntimeException bug) {
                    rollBack(); // a call applies whole or not at all, even when an op fails unexpectedly
                    throw bug;
                }
                if (op.required() && result instanceof WriteResult w && !w.applied()) {
                    rollBack();
                    return new PreconditionFailed(i, w.reason(), w.version(), w.value());
                }
                results.add(result);
            }
            return new Completed(results);
        }

        private Result evaluate(int i, Op op) {
            if (op instanceof Get get) return get(i, get);
            if (op instanceof GetMany many) return getMany(i, many);
            if (op instanceof GetPrefix prefix) return getPrefix(i, prefix);
            if (op instanceof Put put) return put(i, put);
            if (op instanceof PutIfAbsent pia) return putIfAbsent(i, pia);
            if (op instanceof Delete delete) return delete(i, delete);
            if (op instanceof Incr incr) return incr(i, incr);
            if (op instanceof Check check) return check(i, check);
            throw new IllegalStateException("unknown op " + op);
        }

        // ---- reads

        private Result get(int i, Get op) {
            Row row = live(op.ns(), op.key());
            if (row == null) return new GetResult(i, op.key(), null);
            readBudget -= row.value().utf8Length();
            return new GetResult(i, op.key(), readRow(op.key(), row, true));
        }

        private Result getMany(int i, GetMany op) {
            Set<String> wanted = new LinkedHashSet<>(op.keys());
            List<String> missing = new ArrayList<>();
            TreeMap<String, Row> found = new TreeMap<>(KeyOrder.BYTES);
            for (String key : wanted) {
                Row row = live(op.ns(), key);
                if (row == null) missing.add(key);
                else found.put(key, row);
            }
            List<ReadRow> rows = new ArrayList<>(found.size());
            boolean truncated = false;
            for (Map.Entry<String, Row> e : found.entrySet()) {
                if (!spend(e.getValue())) {
                    truncated = true;
                    break;
                }
                rows.add(readRow(e.getKey(), e.getValue(), true));
            }
            return new GetManyResult(i, rows, missing, truncated);
        }

        private Result getPrefix(int i, GetPrefix op) {
            NavigableMap<String, Row> space = spaces.getOrDefault(new Scope(tenant, op.ns()), new TreeMap<>(KeyOrder.BYTES));
            boolean fromCursor = op.after() != null && KeyOrder.BYTES.compare(op.after(), op.prefix()) >= 0;
            NavigableMap<String, Row> tail = fromCursor ? space.tailMap(op.after(), false) : space.tailMap(op.prefix(), true);
            List<ReadRow> rows = new ArrayList<>();
            boolean truncated = false;
            for (Map.Entry<String, Row> e : tail.entrySet()) {
                if (!e.getKey().startsWith(op.prefix())) break;
                Row row = e.getValue();
                if (!row.liveAt(now)) continue;
                if (rows.size() == op.limit() || (!op.keysOnly() && !spend(row))) {
                    truncated = true;
                    break;
                }
                rows.add(readRow(e.getKey(), row, !op.keysOnly()));
            }
            String nextAfter = !truncated ? null : rows.isEmpty() ? op.after() : rows.get(rows.size() - 1).key();
            return new GetPrefixResult(i, rows, truncated, nextAfter);
        }

        /** Charges a row's value to the read budget; false (and nothing charged) when it does not fit. */
        private boolean spend(Row row) {
            if (row.value().utf8Length() > readBudget) return false;
            readBudget -= row.value().utf8Length();
            return true;
        }

        private ReadRow readRow(String key, Row row, boolean withValue) {
            return new ReadRow(key, withValue ? row.value() : null, row.version(), row.expiresAt(), row.updatedAt());
        }

        // ---- writes

        private Result put(int i, Put op) {
            // Only a precondition reads the current row: a lookup in a large space is a walk down its
            // tree, and a plain put would walk it twice (here and in store) for nothing.
            WriteResult lost = op.expect() == null ? null : lostPrecondition(i, op, live(op.ns(), op.key()), op.expect());
            return lost != null ? lost : write(i, op, op.value(), op.expiry().expiresAt(now));
        }

        private Result putIfAbsent(int i, PutIfAbsent op) {
            Row current = live(op.ns(), op.key());
            WriteResult lost = lostPrecondition(i, op, current, 0);
            return lost != null ? lost : write(i, op, op.value(), op.expiry().expiresAt(now));
        }

        private Result delete(int i, Delete op) {
            Row current = live(op.ns(), op.key());
            if (op.expect() != null) {
                WriteResult lost = lostPrecondition(i, op, current, op.expect());
                if (lost != null) return lost;
            }
            if (current == null) {
                // Only `expect: 0` reaches here with an absent key: the assertion holds, nothing to delete.
                if (op.expect() != null) return new WriteResult(i, op.name(), true, null, op.key(), JsonValue.NULL, 0);
                return lost(i, op, WriteReason.ABSENT, null);
            }
            store(op.ns(), op.key(), null);
            return new WriteResult(i, op.name(), true, null, op.key(), current.value(), current.version());
        }

        private Result incr(int i, Incr op) {
            Row current = live(op.ns(), op.key());
            BigDecimal base = BigDecimal.ZERO;
            if (current != null) {
                var number = current.value().asNumber();
                if (number.isEmpty()) return refusedIncr(i, op, WriteReason.TYPE, current, JsonValue.ofNumber(BigDecimal.ZERO));
                base = number.get();
            }
            // A sum too long to store is past a bound too; checked before adding, as 1e100000000 + 1 is costly.
            if (Numbers.sumDigits(base, op.delta()) > settings.maxValueBytes()) return refusedIncr(i, op, WriteReason.LIMIT, current, liveNumber(current));
            // Adding to zero would re-scale 1e100000 to 100,001 plain digits, which are slow to strip again.
            BigDecimal next = base.signum() == 0 ? op.delta() : base.add(op.delta());
            if ((op.min() != null && next.compareTo(op.min()) < 0) || (op.max() != null && next.compareTo(op.max()) > 0))
                return refusedIncr(i, op, WriteReason.LIMIT, current, liveNumber(current));
            if (JsonValue.ofNumber(next).utf8Length() > settings.maxValueBytes()) return refusedIncr(i, op, WriteReason.LIMIT, current, liveNumber(current));
            // A live counter keeps its lifetime; a new or expired one takes this op's.
            long expiresAt = current != null ? current.expiresAt() : op.expiry().expiresAt(now);
            return write(i, op, JsonValue.ofNumber(next), expiresAt);
        }

        /**
         * A refused incr answers the effective current number (the live number; 0 when the key is
         * absent, expired or not a number), as Queen's server does, and the key's version (or 0).
         */
        private WriteResult refusedIncr(int i, Incr op, WriteReason reason, Row current, JsonValue effective) {
            return new WriteResult(i, op.name(), false, reason, op.key(), effective, current == null ? 0 : current.version());
        }

        /** The live number as stored, or 0 for an absent key. */
        private static JsonValue liveNumber(Row current) {
            return current == null ? JsonValue.ofNumber(BigDecimal.ZERO) : current.value();
        }

        private Result check(int i, Check op) {
            WriteResult lost = lostPrecondition(i, op, live(op.ns(), op.key()), op.expect());
            return lost != null ? lost : new WriteResult(i, op.name(), true, null, op.key(), null, op.expect());
        }

        /** The answer of a write whose {@code expect} does not hold, or null when it holds. */
        private WriteResult lostPrecondition(int i, Op.Write op, Row current, long expect) {
            if (expect == 0) return current == null ? null : lost(i, op, WriteReason.EXISTS, current);
            if (current == null) return lost(i, op, WriteReason.ABSENT, null);
            return current.version() == expect ? null : lost(i, op, WriteReason.VERSION, current);
        }

        private WriteResult lost(int i, Op.Write op, WriteReason reason, Row current) {
            return current == null
                    ? new WriteResult(i, op.name(), false, reason, op.key(), JsonValue.NULL, 0)
                    : new WriteResult(i, op.name(), false, reason, op.key(), current.value(), current.version());
        }

        private WriteResult write(int i, Op.Write op, JsonValue value, long expiresAt) {
            long version = nextVersion++;
            store(op.ns(), op.key(), new Row(value, version, expiresAt, now));
            return new WriteResult(i, op.name(), true, null, op.key(), value, version);
        }

        // ---- state access

        private Row live(String ns, String key) {
            NavigableMap<String, Row> space = spaces.get(new Scope(tenant, ns));
            Row row = space == null ? null : space.get(key);
            return row != null && row.liveAt(now) ? row : null;
        }

        private void store(String ns, String key, Row row) {
            Scope scope = new Scope(tenant, ns);
            undo.add(new Undo(scope, key, replace(scope, key, row)));
        }

        private void rollBack() {
            for (int u = undo.size() - 1; u >= 0; u--) replace(undo.get(u).scope(), undo.get(u).key(), undo.get(u).previous());
            undo.clear();
            nextVersion = versionAtStart;
        }
    }
}
