package io.queenkv.e2e.linearizability;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The sequential specification of one Queen KV key: a versioned register (API.md §1), for
 * {@link LinearizabilityChecker}. Partitioned by key — each key is an independent object.
 *
 * <h2>State</h2>
 * Absent, or present with a value and a version. Values are compared as compact JSON text (two
 * JSON numbers compare numerically, so {@code 0.30} equals {@code 0.3}).
 *
 * <h2>Assumptions about versions (and why the model is looser than "version + 1")</h2>
 * <ul>
 *   <li>Versions come from one cluster-wide counter shared by all keys, so on one key they are
 *       strictly increasing but not consecutive. The model therefore never predicts a write's
 *       version; it checks that a write's reported version is greater than every version this key
 *       is known to have had ({@code floor}), and that later reads report exactly the value and
 *       version of the last linearized write.</li>
 *   <li>A write with an unknown outcome that takes effect gives the key a version the history never
 *       saw: the state holds {@link #UNKNOWN_VERSION}. The next read that reports a version "pins" it
 *       (it must be above {@code floor}). A {@code cas} against an unknown version may or may not
 *       match: the model then allows both outcomes (a nondeterministic step). What the model forgets
 *       (e.g. "the version is not 7" after a failed unknown {@code cas}) only makes it more
 *       permissive, never stricter: it never rejects a linearizable history.</li>
 *   <li>{@code delete} takes no version; a key re-created later gets a version above {@code floor}.</li>
 *   <li>No TTLs: histories checked with this model write with {@code forever:true}.</li>
 *   <li>A lost write ({@code applied:false}) reports the key's current value and version (or 0 when
 *       absent); the model checks them like a read.</li>
 * </ul>
 */
public final class KvModel implements Model<KvModel.State, KvModel.Input, KvModel.Output> {
    public static final KvModel INSTANCE = new KvModel();
    public static final long UNKNOWN_VERSION = -1;

    // ---- inputs ---------------------------------------------------------------------------------

    public sealed interface Input permits Get, Put, Cas, PutIfAbsent, Delete, Incr {
        String key();
    }

    public record Get(String key) implements Input {}

    /** An unconditional put; {@code value} is compact JSON text. */
    public record Put(String key, String value) implements Input {}

    /** A put with {@code expect}: 0 = the key must be absent, N = the key must be at version N. */
    public record Cas(String key, long expect, String value) implements Input {}

    public record PutIfAbsent(String key, String value) implements Input {}

    /** An unconditional delete. */
    public record Delete(String key) implements Input {}

    /** An incr without bounds. */
    public record Incr(String key, BigDecimal delta) implements Input {}

    // ---- outputs --------------------------------------------------------------------------------

    public sealed interface Output permits Unknown, Read, Write {}

    /** The outcome is unknown (timeout, 503, connection failure): anything may have happened. */
    public record Unknown() implements Output {}

    public static final Unknown UNKNOWN = new Unknown();

    /** A get's answer; {@code value} is compact JSON text, {@code version} 0 when not found. */
    public record Read(boolean found, String value, long version) implements Output {
        public static Read absent() {
            return new Read(false, null, 0);
        }

        public static Read of(String value, long version) {
            return new Read(true, value, version);
        }
    }

    /**
     * A write's answer. Applied: the written value and the new version (for a delete: the deleted
     * value and its last version). Lost: the current value and version, or ({@code null}, 0) when
     * the key is absent.
     */
    public record Write(boolean applied, String value, long version) implements Output {
        public static Write applied(String value, long version) {
            return new Write(true, value, version);
        }

        public static Write lost(String currentValue, long currentVersion) {
            return new Write(false, currentValue, currentVersion);
        }
    }

    // ---- state ----------------------------------------------------------------------------------

    /**
     * @param present whether the key exists
     * @param value   its value (compact JSON) when present
     * @param version its version when present (possibly {@link #UNKNOWN_VERSION}), 0 when absent
     * @param floor   the highest version this key is known to have had (0 at first)
     */
    public record State(boolean present, String value, long version, long floor) {
        static final State INITIAL = new State(false, null, 0, 0);

        State written(String v, long ver) {
            return new State(true, v, ver, ver == UNKNOWN_VERSION ? floor : Math.max(floor, ver));
        }

        State deleted() {
            return new State(false, null, 0, floor);
        }

        /** The same state with an unknown version learnt to be {@code ver}. */
        State pinned(long ver) {
            return new State(present, value, ver, Math.max(floor, ver));
        }

        boolean versionUnknown() {
            return present && version == UNKNOWN_VERSION;
        }

        @Override
        public String toString() {
            if (!present) return "absent(floor " + floor + ")";
            return value + "@" + (version == UNKNOWN_VERSION ? "?>" + floor : Long.toString(version));
        }
    }

    @Override
    public State init() {
        return State.INITIAL;
    }

    @Override
    public Object partitionKey(Input input) {
        return input.key();
    }

    @Override
    public List<State> step(State s, Input in, Output out) {
        if (in instanceof Get) return get(s, out);
        if (in instanceof Put p) return put(s, p.value(), out);
        if (in instanceof Cas c) return conditional(s, c.expect(), c.value(), out);
        if (in instanceof PutIfAbsent p) return conditional(s, 0, p.value(), out);
        if (in instanceof Delete) return delete(s, out);
        if (in instanceof Incr i) return incr(s, i.delta(), out);
        throw new IllegalArgumentException("unknown input " + in);
    }

    private static List<State> get(State s, Output out) {
        if (out instanceof Read r) {
            State seen = observe(s, r.found(), r.value(), r.version());
            return seen == null ? List.of() : List.of(seen);
        }
        if (out instanceof Unknown) return List.of(s);
        return List.of(); // a write output for a get: malformed history
    }

    /**
     * Checks that an answer reporting the key's current state (a read, or a lost write) matches
     * {@code s}: returns {@code s} (with an unknown version pinned), or null when it does not match.
     */
    private static State observe(State s, boolean found, String value, long version) {
        if (!s.present) return found ? null : s;
        if (!found || !sameValue(s.value, value)) return null;
        if (s.versionUnknown()) return version > s.floor ? s.pinned(version) : null;
        return version == s.version ? s : null;
    }

    private static List<State> put(State s, String value, Output out) {
        if (out instanceof Unknown) return List.of(s.written(value, UNKNOWN_VERSION));
        if (out instanceof Write w && w.applied() && sameValue(value, w.value()) && w.version() > s.floor)
            return List.of(s.written(value, w.version()));
        return List.of(); // a plain put cannot lose; a version not above every earlier one is impossible
    }

    /** {@code cas} ({@code put} with {@code expect}) and {@code putIfAbsent} (= {@code expect 0}). */
    private static List<State> conditional(State s, long expect, String value, Output out) {
        // Whether the precondition holds in s: certainly, possibly (unknown version), or not.
        boolean mayHold, mayFail;
        if (expect == 0) {
            mayHold = !s.present;
            mayFail = s.present;
        } else if (s.versionUnknown()) {
            mayHold = expect > s.floor; // the unknown version is above floor
            mayFail = true;
        } else {
            mayHold = s.present && s.version == expect;
            mayFail = !mayHold;
        }
        // When it holds, an unknown version is learnt to be `expect`.
        State matched = s.versionUnknown() ? s.pinned(expect) : s;

        if (out instanceof Unknown) {
            List<State> next = new ArrayList<>(2);
            if (mayHold) next.add(matched.written(value, UNKNOWN_VERSION));
            if (mayFail) next.add(s);
            return next;
        }
        if (!(out instanceof Write w)) return List.of();
        if (w.applied()) {
            if (!mayHold || !sameValue(value, w.value()) || w.version() <= matched.floor) return List.of();
            return List.of(matched.written(value, w.version()));
        }
        // Lost: the precondition must fail, and the answer shows the current (winning) state.
        if (!mayFail) return List.of();
        State seen = observe(s, w.version() != 0, w.value(), w.version());
        if (seen == null) return List.of();
        if (seen.present && seen.version == expect) return List.of(); // reported the version it expected: no mismatch
        return List.of(seen);
    }

    private static List<State> delete(State s, Output out) {
        if (out instanceof Unknown) return List.of(s.deleted());
        if (!(out instanceof Write w)) return List.of();
        if (w.applied()) {
            // answers the deleted value and its last version
            State seen = observe(s, true, w.value(), w.version());
            return seen == null ? List.of() : List.of(seen.deleted());
        }
        return s.present ? List.of() : List.of(s); // lost only when absent
    }

    private static List<State> incr(State s, BigDecimal delta, Output out) {
        BigDecimal current = !s.present ? BigDecimal.ZERO : number(s.value);
        if (current == null) {
            // a live non-number: lost with reason "type", nothing written, current state reported
            if (out instanceof Unknown) return List.of(s);
            if (out instanceof Write w && !w.applied()) {
                State seen = observe(s, true, w.value(), w.version());
                return seen == null ? List.of() : List.of(seen);
            }
            return List.of();
        }
        String result = current.add(delta).toPlainString();
        if (out instanceof Unknown) return List.of(s.written(result, UNKNOWN_VERSION));
        if (out instanceof Write w && w.applied() && sameValue(result, w.value()) && w.version() > s.floor)
            return List.of(s.written(result, w.version()));
        return List.of();
    }

    // ---- values ---------------------------------------------------------------------------------

    /** Compact JSON texts are equal, or both are numbers of equal value. */
    static boolean sameValue(String a, String b) {
        if (Objects.equals(a, b)) return true;
        BigDecimal x = number(a), y = number(b);
        return x != null && y != null && x.compareTo(y) == 0;
    }

    private static BigDecimal number(String json) {
        if (json == null || json.isEmpty()) return null;
        char c = json.charAt(0);
        if (c != '-' && (c < '0' || c > '9')) return null;
        try {
            return new BigDecimal(json);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    @Override
    public String describe(Input in, Output out) {
        String call;
        if (in instanceof Get g) call = "get(" + g.key() + ")";
        else if (in instanceof Put p) call = "put(" + p.key() + ", " + p.value() + ")";
        else if (in instanceof Cas c) call = "cas(" + c.key() + ", expect " + c.expect() + ", " + c.value() + ")";
        else if (in instanceof PutIfAbsent p) call = "putIfAbsent(" + p.key() + ", " + p.value() + ")";
        else if (in instanceof Delete d) call = "delete(" + d.key() + ")";
        else if (in instanceof Incr i) call = "incr(" + i.key() + ", " + i.delta() + ")";
        else call = String.valueOf(in);
        String result;
        if (out instanceof Read r) result = r.found() ? "found " + r.value() + "@" + r.version() : "not found";
        else if (out instanceof Write w) result = (w.applied() ? "applied " : "lost, current ") + w.value() + "@" + w.version();
        else result = "UNKNOWN";
        return call + " -> " + result;
    }
}
