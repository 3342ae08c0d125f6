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
        if (!validUnicode(key)) throw Refusal.atOp(index, Reason.KV_BAD_KEY, field + " has an unpaired surrogate");
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

    private static boolean validUnicode(String s) {
        for (int i = 0; i < s.length(); i++) {
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
