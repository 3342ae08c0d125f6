package io.queenkv.e2e.linearizability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import io.queenkv.e2e.linearizability.KvModel.Cas;
import io.queenkv.e2e.linearizability.KvModel.Delete;
import io.queenkv.e2e.linearizability.KvModel.Get;
import io.queenkv.e2e.linearizability.KvModel.Incr;
import io.queenkv.e2e.linearizability.KvModel.Input;
import io.queenkv.e2e.linearizability.KvModel.Output;
import io.queenkv.e2e.linearizability.KvModel.Put;
import io.queenkv.e2e.linearizability.KvModel.PutIfAbsent;
import io.queenkv.e2e.linearizability.KvModel.Read;
import io.queenkv.e2e.linearizability.KvModel.Write;
import io.queenkv.e2e.linearizability.LinearizabilityChecker.Verdict;

class LinearizabilityCheckerTest {
    static final long INF = Operation.UNKNOWN_RETURN;
    static final Output UNKNOWN = KvModel.UNKNOWN;

    /** A tiny builder for hand-made histories on key "k" (times are plain numbers). */
    static final class H {
        final List<Operation<Input, Output>> ops = new ArrayList<>();

        H op(int client, long call, long ret, Input in, Output out) {
            ops.add(new Operation<>(client, in, out, call, ret));
            return this;
        }

        LinearizabilityChecker.Result check() {
            return LinearizabilityChecker.check(KvModel.INSTANCE, ops);
        }

        Verdict verdict() {
            return check().verdict();
        }
    }

    static String v(String s) {
        return "\"" + s + "\"";
    }

    static Put put(String value) {
        return new Put("k", v(value));
    }

    static Cas cas(long expect, String value) {
        return new Cas("k", expect, v(value));
    }

    static PutIfAbsent pia(String value) {
        return new PutIfAbsent("k", v(value));
    }

    static final Get GET = new Get("k");

    static Write applied(String value, long version) {
        return Write.applied(v(value), version);
    }

    static Write lost(String value, long version) {
        return Write.lost(value == null ? "null" : v(value), version);
    }

    static Read read(String value, long version) {
        return Read.of(v(value), version);
    }

    static final Read ABSENT = Read.absent();

    @Nested
    class Linearizable {
        @Test
        void emptyHistory() {
            assertThat(new H().verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void sequentialWritesAndReads() {
            H h = new H()
                    .op(1, 0, 1, GET, ABSENT)
                    .op(1, 2, 3, put("a"), applied("a", 1))
                    .op(2, 4, 5, GET, read("a", 1))
                    .op(1, 6, 7, put("b"), applied("b", 5)) // versions need not be consecutive (global counter)
                    .op(2, 8, 9, GET, read("b", 5));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void readConcurrentWithWriteMaySeeEitherValue() {
            H old = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(1, 2, 10, put("b"), applied("b", 2))
                    .op(2, 3, 4, GET, read("a", 1));
            H fresh = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(1, 2, 10, put("b"), applied("b", 2))
                    .op(2, 3, 4, GET, read("b", 2));
            assertThat(old.verdict()).isEqualTo(Verdict.LINEARIZABLE);
            assertThat(fresh.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void overlappingWritesLinearizeInVersionOrder() {
            // b was called first but got the lower version: it must be linearized first; a wins.
            H h = new H()
                    .op(1, 0, 10, put("b"), applied("b", 2))
                    .op(2, 5, 15, put("a"), applied("a", 1))
                    .op(3, 20, 21, GET, read("b", 2));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void touchingIntervalsCountAsConcurrent() {
            H h = new H()
                    .op(1, 0, 5, put("a"), applied("a", 1))
                    .op(2, 5, 6, GET, ABSENT); // called at the instant the put returned
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void manyConcurrentReadersSeeTheWriteInOrder() {
            H h = new H().op(1, 0, 100, put("a"), applied("a", 1));
            // readers overlapping the write: absent, absent, a, a — a valid order exists
            h.op(2, 10, 20, GET, ABSENT).op(3, 15, 25, GET, ABSENT).op(4, 30, 40, GET, read("a", 1))
                    .op(5, 50, 60, GET, read("a", 1));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void unknownWriteThatTookEffect() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, INF, put("b"), UNKNOWN)
                    .op(3, 10, 11, GET, read("b", 7)) // its version is learnt from the read
                    .op(3, 12, 13, GET, read("b", 7));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void unknownWriteThatDidNotTakeEffect() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, INF, put("b"), UNKNOWN)
                    .op(3, 10, 11, GET, read("a", 1))
                    .op(3, 100, 101, GET, read("a", 1));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void unknownWriteTakingEffectLate() {
            H h = new H()
                    .op(2, 0, INF, put("b"), UNKNOWN)
                    .op(1, 1, 2, put("a"), applied("a", 3))
                    .op(3, 10, 11, GET, read("a", 3))
                    .op(3, 20, 21, GET, read("b", 9));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void oneCasWinnerAndOneLoserThatSeesTheWinner() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, 10, cas(1, "b"), applied("b", 2))
                    .op(3, 3, 11, cas(1, "c"), lost("b", 2));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void casAgainstAnUnknownVersionLearnsIt() {
            H h = new H()
                    .op(1, 0, INF, put("a"), UNKNOWN)
                    .op(2, 5, 6, cas(4, "b"), applied("b", 6)) // so a was written at version 4
                    .op(3, 7, 8, GET, read("b", 6));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void unknownCasMayOrMayNotApply() {
            H applied = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, INF, cas(1, "b"), UNKNOWN)
                    .op(3, 5, 6, GET, read("b", 4));
            H notApplied = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, INF, cas(1, "b"), UNKNOWN)
                    .op(3, 5, 6, GET, read("a", 1));
            assertThat(applied.verdict()).isEqualTo(Verdict.LINEARIZABLE);
            assertThat(notApplied.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void putIfAbsentOneWinner() {
            H h = new H()
                    .op(1, 0, 10, pia("a"), lost("b", 3))
                    .op(2, 1, 9, pia("b"), applied("b", 3))
                    .op(3, 11, 12, GET, read("b", 3));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void deleteAndRecreate() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(1, 2, 3, new Delete("k"), applied("a", 1))
                    .op(1, 4, 5, GET, ABSENT)
                    .op(1, 6, 7, new Delete("k"), lost(null, 0))
                    .op(1, 8, 9, cas(0, "b"), applied("b", 2))
                    .op(1, 10, 11, GET, read("b", 2));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void concurrentIncrements() {
            Input incr = new Incr("k", BigDecimal.ONE);
            H h = new H()
                    .op(1, 0, 10, incr, Write.applied("2", 7))
                    .op(2, 1, 9, incr, Write.applied("1", 4))
                    .op(3, 2, INF, incr, UNKNOWN)
                    .op(4, 20, 21, GET, Read.of("3", 11));
            assertThat(h.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        }

        @Test
        void keysAreIndependent() {
            H h = new H()
                    .op(1, 0, 1, new Put("x", v("a")), applied("a", 1))
                    .op(1, 2, 3, new Put("y", v("b")), applied("b", 2))
                    .op(2, 4, 5, new Get("x"), read("a", 1))
                    .op(2, 6, 7, new Get("y"), read("b", 2));
            var result = h.check();
            assertThat(result.verdict()).isEqualTo(Verdict.LINEARIZABLE);
            assertThat(result.partitions()).hasSize(2);
        }
    }

    @Nested
    class NotLinearizable {
        @Test
        void staleReadAfterCompletedWrite() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(1, 2, 3, put("b"), applied("b", 2))
                    .op(2, 4, 5, GET, read("a", 1));
            var result = h.check();
            assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
            assertThat(result.explanation()).contains("partition k").contains("get(k) -> found \"a\"@1");
        }

        @Test
        void absentReadAfterCompletedWrite() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, 3, GET, ABSENT);
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void readOfAValueNeverWritten() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 0, 5, GET, read("z", 1));
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void readWithTheWrongVersion() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 3))
                    .op(2, 2, 3, GET, read("a", 4));
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void twoCasWinnersOnTheSameVersion() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, 10, cas(1, "b"), applied("b", 2))
                    .op(3, 3, 11, cas(1, "c"), applied("c", 3));
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void twoPutIfAbsentWinners() {
            H h = new H()
                    .op(1, 0, 10, pia("a"), applied("a", 1))
                    .op(2, 1, 9, pia("b"), applied("b", 2));
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void readGoingBackwards() {
            // The write of b is still in flight, but once a read saw b, a later read cannot see a.
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(1, 2, 100, put("b"), applied("b", 2))
                    .op(2, 10, 11, GET, read("b", 2))
                    .op(3, 20, 21, GET, read("a", 1));
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void readGoingBackwardsAfterAnUnknownWrite() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, INF, put("b"), UNKNOWN)
                    .op(3, 10, 11, GET, read("b", 5))
                    .op(3, 20, 21, GET, read("a", 1));
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void versionsGoingBackwards() {
            // Two sequential writes: the second must get a higher version.
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 5))
                    .op(1, 2, 3, put("b"), applied("b", 4));
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void lostCasThatReportsTheVersionItExpected() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, 3, cas(1, "b"), lost("a", 1));
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void lostCasOnAMatchingVersionWithNoConcurrentWrite() {
            H h = new H()
                    .op(1, 0, 1, put("a"), applied("a", 1))
                    .op(2, 2, 3, cas(1, "b"), lost("c", 9));
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void lostIncrementIsCaught() {
            Input incr = new Incr("k", BigDecimal.ONE);
            H h = new H()
                    .op(1, 0, 1, incr, Write.applied("1", 1))
                    .op(2, 2, 3, incr, Write.applied("1", 2)); // should have been 2
            assertThat(h.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }

        @Test
        void onlyTheBrokenKeyIsReported() {
            H h = new H()
                    .op(1, 0, 1, new Put("good", v("a")), applied("a", 1))
                    .op(1, 2, 3, new Get("good"), read("a", 1))
                    .op(1, 4, 5, new Put("bad", v("a")), applied("a", 2))
                    .op(1, 6, 7, new Get("bad"), ABSENT);
            var result = h.check();
            assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
            assertThat(result.explanation()).contains("partition bad").doesNotContain("partition good");
            assertThatThrownBy(result::assertLinearizable).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("NOT_LINEARIZABLE");
        }
    }

    @Test
    void searchIsBounded() {
        // Many concurrent unknown writes of distinct values and reads pinning them: a large space.
        H h = new H();
        for (int i = 0; i < 40; i++) h.op(i, i, INF, put("w" + i), UNKNOWN);
        for (int i = 0; i < 40; i++) h.op(100 + i, 1000 + 2 * i, 1001 + 2 * i, GET, read("nope", 1));
        var result = LinearizabilityChecker.check(KvModel.INSTANCE, h.ops, 10_000);
        assertThat(result.verdict()).isEqualTo(Verdict.SEARCH_TOO_LARGE);
        assertThat(result.explanation()).contains("search too large");
    }

    // ---- randomized: histories from a simulated linearizable store --------------------------------

    /**
     * A simulated store with a global version counter and concurrent clients. Each operation takes
     * effect at one instant between its call and return (its linearization point), so the history
     * is linearizable by construction. Some writes lose their answer (unknown outcome), having
     * taken effect or not.
     */
    static final class Simulation {
        record Installed(String value, long version, long at) {}

        /** A history op plus what the simulation knows about it. */
        static final class SimOp {
            final int client;
            final Input input;
            Output output;
            long call, ret = -1, appliedAt = -1;
            boolean installed; // changed the key's state (for the stale-read mutation)

            SimOp(int client, Input input, long call) {
                this.client = client;
                this.input = input;
                this.call = call;
            }
        }

        final Random rnd;
        final Map<String, String> values = new HashMap<>();
        final Map<String, Long> versions = new HashMap<>();
        final Map<String, List<Installed>> installs = new HashMap<>();
        final List<SimOp> ops = new ArrayList<>();
        long counter;
        long time;
        int valueSeq;

        Simulation(long seed) {
            rnd = new Random(seed);
        }

        Input randomInput(String key) {
            if (key.equals("c")) {
                int r = rnd.nextInt(10);
                return r < 5 ? new Incr(key, BigDecimal.valueOf(rnd.nextInt(5) - 1)) : r < 9 ? new Get(key) : new Delete(key);
            }
            int r = rnd.nextInt(20);
            // Reuse values now and then, so equal values with different versions occur.
            String value = v(rnd.nextInt(4) == 0 ? "same" : "w" + (valueSeq++));
            if (r < 8) return new Get(key);
            if (r < 12) return new Put(key, value);
            if (r < 16) {
                long cur = versions.getOrDefault(key, 0L);
                long expect = rnd.nextBoolean() ? cur : rnd.nextBoolean() ? 0 : Math.max(0, cur - 1);
                return new Cas(key, expect, value);
            }
            if (r < 19) return new PutIfAbsent(key, value);
            return new Delete(key);
        }

        /** Applies an op to the store at the current time and returns its output. */
        Output apply(SimOp op) {
            op.appliedAt = time;
            String key = op.input.key();
            boolean present = values.containsKey(key);
            String cur = values.get(key);
            long curVersion = versions.getOrDefault(key, 0L);
            Input in = op.input;
            if (in instanceof Get) return present ? Read.of(cur, curVersion) : Read.absent();
            if (in instanceof Delete) {
                if (!present) return Write.lost("null", 0);
                values.remove(key);
                versions.remove(key);
                op.installed = true;
                return Write.applied(cur, curVersion);
            }
            String newValue;
            boolean holds;
            if (in instanceof Put p) {
                newValue = p.value();
                holds = true;
            } else if (in instanceof Cas c) {
                newValue = c.value();
                holds = c.expect() == 0 ? !present : present && curVersion == c.expect();
            } else if (in instanceof PutIfAbsent p) {
                newValue = p.value();
                holds = !present;
            } else {
                Incr i = (Incr) in;
                newValue = (present ? new BigDecimal(cur) : BigDecimal.ZERO).add(i.delta()).toPlainString();
                holds = true;
            }
            if (!holds) return Write.lost(present ? cur : "null", curVersion);
            long version = ++counter;
            values.put(key, newValue);
            versions.put(key, version);
            installs.computeIfAbsent(key, k -> new ArrayList<>()).add(new Installed(newValue, version, time));
            op.installed = true;
            return Write.applied(newValue, version);
        }

        /** Runs {@code clients} clients for {@code steps} scheduling steps over {@code keys}. */
        List<SimOp> run(int clients, int steps, List<String> keys) {
            SimOp[] inFlight = new SimOp[clients];
            Output[] pending = new Output[clients]; // applied, answer not yet returned
            for (int s = 0; s < steps; s++) {
                time++;
                int c = rnd.nextInt(clients);
                SimOp op = inFlight[c];
                if (op == null) {
                    inFlight[c] = new SimOp(c, randomInput(keys.get(rnd.nextInt(keys.size()))), time);
                } else if (pending[c] == null) {
                    boolean write = !(op.input instanceof Get);
                    if (write && rnd.nextInt(12) == 0) {
                        // the answer is lost: the write takes effect now, or never
                        if (rnd.nextBoolean()) apply(op);
                        op.output = KvModel.UNKNOWN;
                        op.ret = Operation.UNKNOWN_RETURN;
                        ops.add(op);
                        inFlight[c] = null;
                    } else {
                        pending[c] = apply(op);
                    }
                } else {
                    op.output = pending[c];
                    op.ret = time;
                    ops.add(op);
                    inFlight[c] = null;
                    pending[c] = null;
                }
            }
            for (int c = 0; c < clients; c++) { // finish what is in flight
                if (inFlight[c] == null) continue;
                time++;
                SimOp op = inFlight[c];
                op.output = pending[c] != null ? pending[c] : apply(op);
                op.ret = ++time;
                ops.add(op);
            }
            return ops;
        }

        static List<Operation<Input, Output>> history(List<SimOp> ops) {
            return ops.stream().map(o -> new Operation<>(o.client, o.input, o.output, o.call, o.ret)).toList();
        }

        /**
         * Replaces one read's answer with a stale one: a value+version of its key that was
         * overwritten by a write which completed (answered) before the read was called. Returns
         * false when no read qualifies.
         */
        boolean mutateOneReadToStale() {
            List<SimOp> reads = new ArrayList<>(ops.stream().filter(o -> o.input instanceof Get).toList());
            java.util.Collections.shuffle(reads, rnd);
            for (SimOp read : reads) {
                String key = read.input.key();
                // the latest-applied write on this key that answered before the read was called
                long overwrittenBefore = ops.stream()
                        .filter(w -> w.installed && !w.output.equals(KvModel.UNKNOWN) && w.input.key().equals(key)
                                && w.ret < read.call)
                        .mapToLong(w -> w.appliedAt).max().orElse(-1);
                if (overwrittenBefore < 0) continue;
                List<Installed> stale = installs.getOrDefault(key, List.of()).stream()
                        .filter(i -> i.at < overwrittenBefore).toList();
                if (stale.isEmpty()) continue;
                Installed pick = stale.get(rnd.nextInt(stale.size()));
                read.output = Read.of(pick.value, pick.version);
                return true;
            }
            return false;
        }
    }

    @Test
    void simulatedHistoriesAreLinearizable() {
        for (long seed = 0; seed < 300; seed++) {
            Simulation sim = new Simulation(seed);
            var ops = sim.run(2 + (int) (seed % 5), 300, List.of("a", "b", "c"));
            var result = LinearizabilityChecker.check(KvModel.INSTANCE, Simulation.history(ops));
            assertThat(result.verdict()).as("seed %d: %s", seed, result.explanation()).isEqualTo(Verdict.LINEARIZABLE);
        }
    }

    @Test
    void aStaleReadInASimulatedHistoryIsFlagged() {
        int mutated = 0;
        for (long seed = 0; seed < 300; seed++) {
            Simulation sim = new Simulation(seed);
            sim.run(2 + (int) (seed % 5), 300, List.of("a", "b", "c"));
            if (!sim.mutateOneReadToStale()) continue;
            mutated++;
            var result = LinearizabilityChecker.check(KvModel.INSTANCE, Simulation.history(sim.ops));
            assertThat(result.verdict()).as("seed %d", seed).isEqualTo(Verdict.NOT_LINEARIZABLE);
        }
        assertThat(mutated).as("histories with a read that could be made stale").isGreaterThan(250);
    }
}
