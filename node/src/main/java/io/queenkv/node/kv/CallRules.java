package io.queenkv.node.kv;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import io.queenkv.node.kv.Refusal.Reason;

/** The contract's rules for names and for a call as a whole, checked before anything is proposed. */
public final class CallRules {
    public static final int MAX_KEY_BYTES = 512;
    public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 256;
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    private CallRules() {}

    public static void checkNamespace(int index, String ns) {
        if (ns == null || !NAMESPACE.matcher(ns).matches())
            throw Refusal.atOp(index, Reason.KV_BAD_NAMESPACE, "ns must match ^[a-z0-9][a-z0-9._-]{0,63}$");
    }

    /** A key (or a key of getMany, or a getPrefix cursor): non-empty, valid Unicode, no NUL, ≤ 512 bytes. */
    public static void checkKey(int index, String key, String field) {
        if (key == null) throw Refusal.atOp(index, Reason.KV_BAD_KEY, field + " is required");
        if (key.isEmpty()) throw Refusal.atOp(index, Reason.KV_BAD_KEY, field + " must not be empty");
        if (key.indexOf('\0') >= 0) throw Refusal.atOp(index, Reason.KV_BAD_KEY, field + " must not contain NUL");
        if (!isValidUnicode(key)) throw Refusal.atOp(index, Reason.KV_BAD_KEY, field + " has an unpaired surrogate");
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_KEY_BYTES)
            throw Refusal.atOp(index, Reason.KV_KEY_TOO_LARGE, field + " is " + bytes + " bytes; the limit is " + MAX_KEY_BYTES);
    }

    public static void checkValue(int index, JsonValue value, Settings settings) {
        if (value.utf8Length() > settings.maxValueBytes())
            throw Refusal.atOp(index, Reason.KV_VALUE_TOO_LARGE, "value is " + value.utf8Length()
                    + " bytes of compact JSON; the limit is " + settings.maxValueBytes());
    }

    /** Whole-call limits: op count, key count, one write per key. */
    public static void checkCall(List<Op> ops, Settings settings) {
        if (ops.size() > settings.maxOpsPerCall())
            throw new Refusal(Reason.KV_TOO_MANY_OPS, "call has " + ops.size() + " ops; the limit is " + settings.maxOpsPerCall());
        long keys = 0;
        Set<List<String>> written = new HashSet<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            keys += op.keyCount();
            if (keys > settings.maxKeysPerCall())
                throw Refusal.atOp(i, Reason.KV_TOO_MANY_KEYS, "call reaches " + keys + " keys; the limit is " + settings.maxKeysPerCall());
            if (op instanceof Op.Write w && !written.add(List.of(w.ns(), w.key())))
                throw Refusal.atOp(i, Reason.KV_DUPLICATE_KEY_IN_CALL, "a second write on key '" + w.key() + "' in ns '" + w.ns() + "'");
        }
    }

    /**
     * What the leader checks of every entry proposed to the log. The HTTP layer has checked the call
     * already; this stops whatever else reaches the Raft port, so an entry in the log is one every
     * node can apply. A write call must pass every rule a parsed call passes.
     */
    public static void checkEntry(Entry entry, Settings settings) {
        if (entry instanceof Entry.WriteCalls group) {
            if (group.calls().isEmpty()) throw new Refusal(Reason.KV_BAD_REQUEST, "the entry holds no calls");
            for (Entry.WriteCall call : group.calls()) checkEntry(call, settings);
        } else if (entry instanceof Entry.WriteCall call) {
            if (call.tenant() == null || call.tenant().isEmpty()) throw new Refusal(Reason.KV_BAD_REQUEST, "the call names no tenant");
            if (call.ops().isEmpty()) throw new Refusal(Reason.KV_BAD_REQUEST, "the call has no ops");
            if ((call.idempotencyKey() == null) != (call.fingerprint() == null))
                throw new Refusal(Reason.KV_BAD_REQUEST, "an idempotency key goes with a fingerprint");
            if (call.idempotencyKey() != null && (call.idempotencyKey().isBlank() || call.idempotencyKey().length() > MAX_IDEMPOTENCY_KEY_LENGTH))
                throw new Refusal(Reason.KV_BAD_REQUEST, "Idempotency-Key must be 1 to " + MAX_IDEMPOTENCY_KEY_LENGTH + " characters");
            for (int i = 0; i < call.ops().size(); i++) checkOp(i, call.ops().get(i), settings);
            checkCall(call.ops(), settings);
        } else if (entry instanceof Entry.Sweep sweep) {
            if (sweep.maxRows() < 1) throw new Refusal(Reason.KV_BAD_REQUEST, "a sweep removes at least one row");
        } else if (entry instanceof Entry.ChangeSettings change) {
            checkSettings(change.settings());
        } else if (entry instanceof Entry.SeedSettings seed) {
            checkSettings(seed.settings());
        }
    }

    private static void checkSettings(Settings settings) {
        List<String> problems = settings.problems();
        if (!problems.isEmpty()) throw new Refusal(Reason.KV_BAD_REQUEST, String.join("; ", problems));
    }

    /** One typed op against the rules its JSON form was parsed under. */
    private static void checkOp(int i, Op op, Settings settings) {
        checkNamespace(i, op.ns());
        if (op instanceof Op.GetMany many) {
            for (String key : many.keys()) checkKey(i, key, "keys[]");
        } else if (op instanceof Op.GetPrefix prefix) {
            checkKey(i, prefix.prefix(), "prefix");
            if (prefix.after() != null && !prefix.after().isEmpty()) checkKey(i, prefix.after(), "after");
            if (prefix.limit() < 1 || prefix.limit() > Op.GetPrefix.MAX_LIMIT)
                throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "limit must be 1 to " + Op.GetPrefix.MAX_LIMIT);
        } else if (op instanceof Op.Get get) {
            checkKey(i, get.key(), "key");
        } else if (op instanceof Op.Write write) {
            checkKey(i, write.key(), "key");
        }
        if (op instanceof Op.Put put) checkWritten(i, put.value(), put.expiry(), settings);
        if (op instanceof Op.PutIfAbsent put) checkWritten(i, put.value(), put.expiry(), settings);
        if (op instanceof Op.Incr incr) {
            if (incr.delta() == null) throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "delta is required");
            if (incr.expiry() == null) throw Refusal.atOp(i, Reason.KV_EXPIRY_NOT_SPECIFIED, "an expiry is required");
        }
        if (op instanceof Op.Put put && put.expect() != null && put.expect() < 0) throw Refusal.atOp(i, Reason.KV_BAD_EXPECT, "expect < 0");
        if (op instanceof Op.Delete delete && delete.expect() != null && delete.expect() < 0) throw Refusal.atOp(i, Reason.KV_BAD_EXPECT, "expect < 0");
        if (op instanceof Op.Check check && check.expect() < 0) throw Refusal.atOp(i, Reason.KV_BAD_EXPECT, "expect < 0");
    }

    private static void checkWritten(int i, JsonValue value, Expiry expiry, Settings settings) {
        if (value == null) throw Refusal.atOp(i, Reason.KV_BAD_REQUEST, "value is required");
        if (expiry == null) throw Refusal.atOp(i, Reason.KV_EXPIRY_NOT_SPECIFIED, "an expiry is required");
        checkValue(i, value, settings);
    }

    /** No unpaired surrogate: the text has a UTF-8 form, so it is stored and answered exactly as sent. */
    public static boolean isValidUnicode(String s) {
        // Most text holds no surrogate at all: a plain scan for one (which the JIT compiles tightly) comes first.
        for (int i = 0; i < s.length(); i++)
            if (Character.isSurrogate(s.charAt(i))) return surrogatesPairedFrom(s, i);
        return true;
    }

    private static boolean surrogatesPairedFrom(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) return false;
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
