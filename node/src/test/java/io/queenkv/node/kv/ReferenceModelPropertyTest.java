package io.queenkv.node.kv;

import static io.queenkv.node.testing.property.Gen.weighted;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.queenkv.node.kv.Outcome.Completed;
import io.queenkv.node.kv.Outcome.IdempotencyKeyReused;
import io.queenkv.node.kv.Outcome.PreconditionFailed;
import io.queenkv.node.kv.Result.GetManyResult;
import io.queenkv.node.kv.Result.GetPrefixResult;
import io.queenkv.node.kv.Result.GetResult;
import io.queenkv.node.kv.Result.ReadRow;
import io.queenkv.node.kv.Result.WriteResult;
import io.queenkv.node.testing.property.Gen;
import io.queenkv.node.testing.property.Plan;
import io.queenkv.node.testing.property.PropertyRunner;
import io.queenkv.node.testing.property.Verdict;

/**
 * Random call sequences against the engine and against a plain reference model written from API.md:
 * every answer, and the stored-row counters, must agree. A failure reports the seed and the
 * minimised steps ({@link PropertyRunner}); {@code -Dqueenkv.property.seed=…} replays one seed,
 * {@code -Dqueenkv.property.tries=…} runs more than {@link #TRIES}.
 */
class ReferenceModelPropertyTest {
    /** Sequences per run; about a second on one core. */
    static final int TRIES = 1000;
    static final long T0 = Kv.T0;
    static final long SEC = Kv.SEC;
    static final List<String> TENANTS = List.of("tenant-1", "tenant-2");
    static final List<String> NAMESPACES = List.of("a", "b");
    /** Small key space; the last two tell byte order from UTF-16 order. */
    static final List<String> KEYS = List.of("k", "kx", "k\uE000", "k\uD83D\uDE00");
    static final List<String> PREFIXES = List.of("k", "kx", "k\uE000", "z");
    static final List<String> VALUES = List.of("0", "1", "2", "-3", "0.1", "0.2", "1.5", "\"s\"", "\"\"", "null");
    static final List<String> DELTAS = List.of("1", "-1", "2", "0.1", "0.2", "-0.3", "5");

    /** Placeholders for {@code expect}, resolved against the model's state when the step runs. */
    static final long NO_EXPECT = -9, EXPECT_CURRENT = -1, EXPECT_CURRENT_PLUS_ONE = -2;

    // ================================================================= steps

    sealed interface Step {}

    /** A write call stamped {@code dt} after the clock ({@code dt < 0}: stamped earlier than the previous entry). */
    record WriteStep(long dt, String tenant, String idempotencyKey, List<Op> ops) implements Step {}

    /** The previous write call sent again (same Idempotency-Key and content) at a new instant. */
    record RetryStep(long dt) implements Step {}

    /** A read-only call at {@code clock + dt}. */
    record ReadStep(long dt, String tenant, List<Op> ops) implements Step {}

    record SweepStep(long dt, int maxRows) implements Step {}

    // ================================================================= the property

    @Test
    void theEngineAnswersLikeTheReferenceModel() {
        PropertyRunner.assertHolds(TRIES, scenarios(), steps -> runAgainst(new Model(Flaw.NONE), steps));
    }

    /**
     * The property can fail: against a model with a planted flaw, a run finds a failing seed and
     * minimises it to a few steps, and replaying that seed alone finds the same steps. The run seed is
     * fixed, so this test does not depend on luck.
     */
    @ParameterizedTest
    @EnumSource(value = Flaw.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void aFlawInTheModelIsReportedWithItsSeedAndAFewSteps(Flaw flaw) {
        Verdict<Step> verdict = PropertyRunner.run(Plan.derived(20261201L, TRIES), scenarios(), steps -> runAgainst(new Model(flaw), steps));

        if (!(verdict instanceof Verdict.Failed<Step> failed)) throw new AssertionError("the flaw went unnoticed: " + verdict);
        assertThat(failed.minimised()).hasSizeBetween(1, 3);
        assertThat(failed.failure()).isInstanceOf(AssertionError.class);
        assertThat(failed.report()).contains("seed=" + failed.seed(), "-Dqueenkv.property.seed=" + failed.seed(),
                "1. " + failed.minimised().get(0));
        Verdict<Step> replayed = PropertyRunner.run(Plan.replay(failed.seed()), scenarios(), steps -> runAgainst(new Model(flaw), steps));
        if (!(replayed instanceof Verdict.Failed<Step> again)) throw new AssertionError("replaying seed " + failed.seed() + " passed");
        assertThat(again.minimised()).isEqualTo(failed.minimised());
    }

    /** Runs the steps against a fresh engine and {@code model}, comparing every answer. */
    static void runAgainst(Model model, List<Step> steps) {
        KvEngine engine = new KvEngine(Settings.DEFAULTS);
        long clock = T0;
        long index = 0;
        Entry.WriteCall lastCall = null;
        for (Step step : steps) {
            String what = step.toString();
            if (step instanceof WriteStep w) {
                long instant = clock + w.dt();
                clock = Math.max(clock, instant);
                List<Op> ops = resolve(model, w.tenant(), oneWritePerKey(w.ops()));
                String fingerprint = w.idempotencyKey() == null ? null : ops.toString();
                lastCall = new Entry.WriteCall(instant, w.tenant(), w.idempotencyKey(), fingerprint, ops);
                what = lastCall.toString();
                assertThat(engine.apply(++index, lastCall)).as(what).isEqualTo(model.apply(lastCall));
            } else if (step instanceof RetryStep r) {
                if (lastCall == null) continue;
                clock += Math.max(0, r.dt());
                Entry.WriteCall retry = lastCall.withInstant(clock);
                what = "retry " + retry;
                assertThat(engine.apply(++index, retry)).as(what).isEqualTo(model.apply(retry));
            } else if (step instanceof ReadStep r) {
                long now = clock + r.dt();
                assertThat(engine.read(r.tenant(), r.ops(), now)).as(what).isEqualTo(model.read(r.tenant(), r.ops(), now));
            } else if (step instanceof SweepStep s) {
                long instant = clock + s.dt();
                clock = Math.max(clock, instant);
                Entry.Sweep sweep = new Entry.Sweep(instant, s.maxRows());
                assertThat(engine.apply(++index, sweep)).as(what).isEqualTo(new Completed(List.of()));
                model.sweep(sweep);
            }
            assertThat(engine.lastInstant()).as("lastInstant after %s", what).isEqualTo(model.lastInstant);
            assertThat(engine.keyCount()).as("keyCount after %s", what).isEqualTo(model.rows.size());
            assertThat(engine.valueBytes()).as("valueBytes after %s", what).isEqualTo(model.valueBytes());
            assertThat(engine.hasDueRows(clock)).as("hasDueRows after %s", what).isEqualTo(model.hasDueRows(clock));
        }
    }

    /** The contract refuses two writes on one key in a call; keep the first. */
    static List<Op> oneWritePerKey(List<Op> ops) {
        Set<List<String>> written = new HashSet<>();
        List<Op> kept = new ArrayList<>();
        for (Op op : ops)
            if (!(op instanceof Op.Write w) || written.add(List.of(w.ns(), w.key()))) kept.add(op);
        return kept;
    }

    /** Turns expect placeholders into versions, using the model's stored row (expired or not). */
    static List<Op> resolve(Model model, String tenant, List<Op> ops) {
        List<Op> resolved = new ArrayList<>();
        for (Op op : ops) {
            if (op instanceof Op.Put p) {
                resolved.add(new Op.Put(p.ns(), p.key(), p.value(), p.expiry(), expect(model, tenant, p.ns(), p.key(), p.expect()),
                        p.required()));
            } else if (op instanceof Op.Delete d) {
                resolved.add(new Op.Delete(d.ns(), d.key(), expect(model, tenant, d.ns(), d.key(), d.expect()), d.required()));
            } else if (op instanceof Op.Check c) {
                resolved.add(new Op.Check(c.ns(), c.key(), expect(model, tenant, c.ns(), c.key(), c.expect()), c.required()));
            } else {
                resolved.add(op);
            }
        }
        return resolved;
    }

    static Long expect(Model model, String tenant, String ns, String key, Long spec) {
        if (spec == NO_EXPECT) return null;
        if (spec >= 0) return spec;
        MRow row = model.rows.get(new MKey(tenant, ns, key));
        long current = row == null ? 0 : row.version();
        return spec == EXPECT_CURRENT ? current : current + 1;
    }

    // ================================================================= generators

    // A lambda per record draws its fields in a fixed order: that order is what lets a seed replay.

    static Gen<List<Step>> scenarios() {
        Gen<Long> writeDt = Gen.elementOf(0L, 1L, SEC / 2, SEC, SEC, 2 * SEC, 3 * SEC, 6 * SEC, 61 * SEC, 700 * SEC, -3 * SEC);
        Gen<Long> readDt = Gen.elementOf(-5 * SEC, -1L, 0L, 0L, 1L, 2 * SEC, 10 * SEC, 100 * SEC);
        Gen<String> tenant = Gen.elementOf(TENANTS);
        Gen<String> idempotencyKey = Gen.elementOf("idem-1", "idem-2").orNull(0.6);
        Gen<List<Op>> writeOps = anyOp().list(1, 4);
        Gen<List<Op>> readOps = readOp().list(1, 3);
        Gen<Integer> sweepRows = Gen.elementOf(0, 1, 2, 100);

        Gen<Step> write = r -> new WriteStep(writeDt.next(r), tenant.next(r), idempotencyKey.next(r), writeOps.next(r));
        Gen<Step> read = r -> new ReadStep(readDt.next(r), tenant.next(r), readOps.next(r));
        Gen<Step> sweep = r -> new SweepStep(writeDt.next(r), sweepRows.next(r));
        Gen<Step> retry = writeDt.map(RetryStep::new);
        return Gen.frequency(weighted(10, write), weighted(4, read), weighted(1, sweep), weighted(2, retry)).list(0, 40);
    }

    static Gen<String> ns() {
        return Gen.elementOf(NAMESPACES);
    }

    static Gen<String> key() {
        return Gen.elementOf(KEYS);
    }

    static Gen<Boolean> required() {
        return Gen.elementOf(false, false, true);
    }

    static Gen<Expiry> expiry() {
        return Gen.elementOf(new Expiry.Ttl(1), new Expiry.Ttl(2), new Expiry.Ttl(5), new Expiry.Ttl(60), Expiry.FOREVER,
                Expiry.FOREVER);
    }

    static Gen<JsonValue> value() {
        return Gen.elementOf(VALUES).map(JsonValue::of);
    }

    static Gen<Long> optionalExpect() {
        return Gen.elementOf(NO_EXPECT, NO_EXPECT, NO_EXPECT, 0L, EXPECT_CURRENT, EXPECT_CURRENT, EXPECT_CURRENT_PLUS_ONE, 3L);
    }

    static Gen<Long> mandatoryExpect() {
        return Gen.elementOf(0L, EXPECT_CURRENT, EXPECT_CURRENT, EXPECT_CURRENT_PLUS_ONE, 3L);
    }

    static Gen<Op> readOp() {
        Gen<String> ns = ns(), key = key(), after = key().orNull(0.5), prefix = Gen.elementOf(PREFIXES);
        Gen<List<String>> keys = key().list(1, 4);
        Gen<Integer> limit = Gen.elementOf(1, 2, 3, 100);
        Gen<Boolean> keysOnly = Gen.booleans();
        Gen<Op> get = r -> new Op.Get(ns.next(r), key.next(r), false);
        Gen<Op> getMany = r -> new Op.GetMany(ns.next(r), keys.next(r), false);
        Gen<Op> getPrefix = r -> new Op.GetPrefix(ns.next(r), prefix.next(r), after.next(r), limit.next(r), keysOnly.next(r), false);
        return Gen.oneOf(get, getMany, getPrefix);
    }

    static Gen<Op> anyOp() {
        Gen<String> ns = ns(), key = key();
        Gen<JsonValue> value = value();
        Gen<Expiry> expiry = expiry();
        Gen<Long> optionalExpect = optionalExpect(), mandatoryExpect = mandatoryExpect();
        Gen<Boolean> required = required();
        Gen<BigDecimal> delta = Gen.elementOf(DELTAS).map(BigDecimal::new);
        Gen<BigDecimal> bound = Gen.elementOf("-1", "0", "1", "3", "10").map(BigDecimal::new).orNull(0.6);

        Gen<Op> put = r -> new Op.Put(ns.next(r), key.next(r), value.next(r), expiry.next(r), optionalExpect.next(r), required.next(r));
        Gen<Op> putIfAbsent = r -> new Op.PutIfAbsent(ns.next(r), key.next(r), value.next(r), expiry.next(r), required.next(r));
        Gen<Op> delete = r -> new Op.Delete(ns.next(r), key.next(r), optionalExpect.next(r), required.next(r));
        Gen<Op> incr = r -> new Op.Incr(ns.next(r), key.next(r), delta.next(r), bound.next(r), bound.next(r), expiry.next(r),
                required.next(r));
        Gen<Op> check = r -> new Op.Check(ns.next(r), key.next(r), mandatoryExpect.next(r), required.next(r));
        return Gen.frequency(weighted(2, readOp()), weighted(3, put), weighted(2, putIfAbsent), weighted(2, delete),
                weighted(3, incr), weighted(2, check));
    }

    // ================================================================= the reference model

    record MKey(String tenant, String ns, String key) {}

    record MRow(String json, long version, long expiresAt, long updatedAt) {}

    record MRecord(String fingerprint, Outcome outcome, long recordedAt) {}

    /** A mistake planted in the model, to show the property catches it; {@code NONE} is the contract. */
    enum Flaw {
        NONE,
        /** A row is still live at the instant it expires. */
        LIVE_AT_EXPIRY,
        /** Keys are ordered by UTF-16 code units instead of UTF-8 bytes. */
        UTF16_KEY_ORDER,
        /** {@code incr} on a live key gives it the op's lifetime instead of keeping the key's own. */
        INCR_RENEWS_LIFETIME
    }

    /**
     * The contract in the plainest form: a hash map of rows; a call works on a copy that is kept only
     * when no required op lost. Keys are ordered by comparing their UTF-8 bytes.
     */
    static final class Model {
        static final long FOREVER = Long.MAX_VALUE;
        static final long BUDGET = 4L * 1024 * 1024;
        static final Pattern JSON_NUMBER = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
        static final Comparator<String> BYTE_ORDER =
                (a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

        final Flaw flaw;
        final Comparator<String> keyOrder;
        Map<MKey, MRow> rows = new HashMap<>();
        long nextVersion = 1;
        long lastInstant = 0;
        final Map<List<String>, MRecord> idempotency = new HashMap<>();

        Model(Flaw flaw) {
            this.flaw = flaw;
            this.keyOrder = flaw == Flaw.UTF16_KEY_ORDER ? Comparator.naturalOrder() : BYTE_ORDER;
        }

        Outcome apply(Entry.WriteCall call) {
            long now = Math.max(call.instant(), lastInstant);
            lastInstant = now;
            List<String> id = List.of(call.tenant(), String.valueOf(call.idempotencyKey()));
            if (call.idempotencyKey() != null) {
                MRecord recorded = idempotency.get(id);
                if (recorded != null && now - recorded.recordedAt() < KvEngine.IDEMPOTENCY_RETENTION_MICROS) {
                    return recorded.fingerprint().equals(call.fingerprint()) ? recorded.outcome() : new IdempotencyKeyReused();
                }
            }
            Outcome outcome = new Call(call.tenant(), now).run(call.ops());
            if (call.idempotencyKey() != null) idempotency.put(id, new MRecord(call.fingerprint(), outcome, now));
            return outcome;
        }

        Completed read(String tenant, List<Op> ops, long now) {
            return (Completed) new Call(tenant, Math.max(now, lastInstant)).run(ops);
        }

        void sweep(Entry.Sweep sweep) {
            long now = Math.max(sweep.instant(), lastInstant);
            lastInstant = now;
            // Which due rows go first is invisible to callers; the engine takes the earliest expiry first.
            List<MKey> due = new ArrayList<>();
            for (Map.Entry<MKey, MRow> e : rows.entrySet()) if (e.getValue().expiresAt() <= now) due.add(e.getKey());
            due.sort(Comparator.<MKey>comparingLong(k -> rows.get(k).expiresAt()).thenComparing(MKey::tenant)
                    .thenComparing(MKey::ns).thenComparing(MKey::key));
            for (int i = 0; i < Math.min(sweep.maxRows(), due.size()); i++) rows.remove(due.get(i));
        }

        long valueBytes() {
            long sum = 0;
            for (MRow row : rows.values()) sum += row.json().getBytes(StandardCharsets.UTF_8).length;
            return sum;
        }

        boolean hasDueRows(long now) {
            return rows.values().stream().anyMatch(r -> r.expiresAt() <= now);
        }

        /** One call: works on a copy of the rows and of the version counter. */
        final class Call {
            final String tenant;
            final long now;
            final Map<MKey, MRow> work = new HashMap<>(rows);
            long version = nextVersion;
            long budget = BUDGET;

            Call(String tenant, long now) {
                this.tenant = tenant;
                this.now = now;
            }

            Outcome run(List<Op> ops) {
                List<Result> results = new ArrayList<>();
                for (int i = 0; i < ops.size(); i++) {
                    Op op = ops.get(i);
                    Result result = evaluate(i, op);
                    if (op.required() && result instanceof WriteResult w && !w.applied())
                        return new PreconditionFailed(i, w.reason(), w.version(), w.value());
                    results.add(result);
                }
                rows = work;
                nextVersion = version;
                return new Completed(results);
            }

            MRow live(String ns, String key) {
                MRow row = work.get(new MKey(tenant, ns, key));
                if (row == null) return null;
                boolean live = row.expiresAt() > now || (flaw == Flaw.LIVE_AT_EXPIRY && row.expiresAt() == now);
                return live ? row : null;
            }

            ReadRow readRow(String key, MRow row, boolean withValue) {
                return new ReadRow(key, withValue ? JsonValue.of(row.json()) : null, row.version(), row.expiresAt(), row.updatedAt());
            }

            long size(MRow row) {
                return row.json().getBytes(StandardCharsets.UTF_8).length;
            }

            Result evaluate(int i, Op op) {
                if (op instanceof Op.Get get) {
                    MRow row = live(get.ns(), get.key());
                    if (row != null) budget -= size(row);
                    return new GetResult(i, get.key(), row == null ? null : readRow(get.key(), row, true));
                }
                if (op instanceof Op.GetMany many) {
                    List<String> found = new ArrayList<>();
                    List<String> missing = new ArrayList<>();
                    for (String key : new LinkedHashSet<>(many.keys())) (live(many.ns(), key) != null ? found : missing).add(key);
                    found.sort(keyOrder);
                    List<ReadRow> out = new ArrayList<>();
                    boolean truncated = false;
                    for (String key : found) {
                        MRow row = live(many.ns(), key);
                        if (size(row) > budget) {
                            truncated = true;
                            break;
                        }
                        budget -= size(row);
                        out.add(readRow(key, row, true));
                    }
                    return new GetManyResult(i, out, missing, truncated);
                }
                if (op instanceof Op.GetPrefix prefix) {
                    List<String> keys = new ArrayList<>();
                    for (MKey k : work.keySet()) {
                        if (k.tenant().equals(tenant) && k.ns().equals(prefix.ns()) && k.key().startsWith(prefix.prefix())
                                && (prefix.after() == null || keyOrder.compare(k.key(), prefix.after()) > 0)
                                && live(k.ns(), k.key()) != null)
                            keys.add(k.key());
                    }
                    keys.sort(keyOrder);
                    List<ReadRow> out = new ArrayList<>();
                    boolean truncated = false;
                    for (String key : keys) {
                        MRow row = live(prefix.ns(), key);
                        if (out.size() == prefix.limit() || (!prefix.keysOnly() && size(row) > budget)) {
                            truncated = true;
                            break;
                        }
                        if (!prefix.keysOnly()) budget -= size(row);
                        out.add(readRow(key, row, !prefix.keysOnly()));
                    }
                    String nextAfter = truncated ? (out.isEmpty() ? prefix.after() : out.get(out.size() - 1).key()) : null;
                    return new GetPrefixResult(i, out, truncated, nextAfter);
                }
                Op.Write w = (Op.Write) op;
                MRow current = live(w.ns(), w.key());
                if (op instanceof Op.Put put) {
                    if (put.expect() != null) {
                        WriteReason reason = precondition(current, put.expect());
                        if (reason != null) return lost(i, w, reason, current);
                    }
                    return write(i, w, put.value().json(), expiresAt(put.expiry()));
                }
                if (op instanceof Op.PutIfAbsent pia) {
                    if (current != null) return lost(i, w, WriteReason.EXISTS, current);
                    return write(i, w, pia.value().json(), expiresAt(pia.expiry()));
                }
                if (op instanceof Op.Delete delete) {
                    if (delete.expect() != null) {
                        WriteReason reason = precondition(current, delete.expect());
                        if (reason != null) return lost(i, w, reason, current);
                    }
                    if (current == null) {
                        return delete.expect() != null
                                ? new WriteResult(i, "delete", true, null, w.key(), JsonValue.NULL, 0)
                                : lost(i, w, WriteReason.ABSENT, null);
                    }
                    work.remove(new MKey(tenant, w.ns(), w.key()));
                    return new WriteResult(i, "delete", true, null, w.key(), JsonValue.of(current.json()), current.version());
                }
                if (op instanceof Op.Incr incr) {
                    BigDecimal base = BigDecimal.ZERO;
                    if (current != null) {
                        if (!JSON_NUMBER.matcher(current.json()).matches()) return refusedIncr(i, w, WriteReason.TYPE, current, "0");
                        base = new BigDecimal(current.json());
                    }
                    BigDecimal next = base.add(incr.delta());
                    if ((incr.min() != null && next.compareTo(incr.min()) < 0) || (incr.max() != null && next.compareTo(incr.max()) > 0))
                        return refusedIncr(i, w, WriteReason.LIMIT, current, current == null ? "0" : current.json());
                    String json = next.signum() == 0 ? "0" : next.stripTrailingZeros().toPlainString();
                    boolean keepsLifetime = current != null && flaw != Flaw.INCR_RENEWS_LIFETIME;
                    return write(i, w, json, keepsLifetime ? current.expiresAt() : expiresAt(incr.expiry()));
                }
                Op.Check check = (Op.Check) op;
                WriteReason reason = precondition(current, check.expect());
                if (reason != null) return lost(i, w, reason, current);
                return new WriteResult(i, "check", true, null, w.key(), null, check.expect());
            }

            WriteReason precondition(MRow current, long expect) {
                if (expect == 0) return current == null ? null : WriteReason.EXISTS;
                if (current == null) return WriteReason.ABSENT;
                return current.version() == expect ? null : WriteReason.VERSION;
            }

            long expiresAt(Expiry expiry) {
                return expiry instanceof Expiry.Ttl ttl ? now + ttl.seconds() * SEC : FOREVER;
            }

            /** A refused incr answers the effective number: the live number, or 0 (absent, expired, not a number). */
            WriteResult refusedIncr(int i, Op.Write op, WriteReason reason, MRow current, String effective) {
                return new WriteResult(i, op.name(), false, reason, op.key(), JsonValue.of(effective), current == null ? 0 : current.version());
            }

            WriteResult lost(int i, Op.Write op, WriteReason reason, MRow current) {
                return new WriteResult(i, op.name(), false, reason, op.key(),
                        current == null ? JsonValue.NULL : JsonValue.of(current.json()), current == null ? 0 : current.version());
            }

            WriteResult write(int i, Op.Write op, String json, long expiresAt) {
                long v = version++;
                work.put(new MKey(tenant, op.ns(), op.key()), new MRow(json, v, expiresAt, now));
                return new WriteResult(i, op.name(), true, null, op.key(), JsonValue.of(json), v);
            }
        }
    }
}
