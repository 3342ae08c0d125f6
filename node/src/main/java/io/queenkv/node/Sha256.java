package io.queenkv.node;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256 digests, given out as copies of one prototype: {@code MessageDigest.getInstance} looks the
 * provider up on every call, at several times the cost of digesting a small write call, which every
 * write with an Idempotency-Key (every write the SDK sends) pays.
 */
public final class Sha256 {
    private static final MessageDigest PROTOTYPE;

    static {
        try {
            PROTOTYPE = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private Sha256() {}

    /** A fresh digest, for one thread. */
    public static MessageDigest newDigest() {
        try {
            return (MessageDigest) PROTOTYPE.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the runtime's SHA-256 cannot be copied", e);
        }
    }

    /** The digest of {@code bytes}, in lowercase hex (64 characters). */
    public static String hexDigestOf(byte[] bytes) {
        return HexFormat.of().formatHex(newDigest().digest(bytes));
    }

    /** Completes {@code digest} and gives its value in lowercase hex (64 characters). */
    public static String hexValueOf(MessageDigest digest) {
        return HexFormat.of().formatHex(digest.digest());
    }
}
