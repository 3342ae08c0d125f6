package io.queenkv.node.access;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;

/**
 * Who is calling. Without a tokens file every request is the default tenant with full rights. With
 * one, each bearer token maps to a tenant and a role; only the tokens' SHA-256 digests are held.
 *
 * <p>Tokens file: one token per line, {@code <sha256-hex-of-token> <tenant> <role>}; blank lines and
 * lines starting with {@code #} are ignored. Roles: {@code read-write}, {@code read-only}, {@code admin}.
 */
public final class Access {
    public static final String DEFAULT_TENANT = "00000000-0000-0000-0000-000000000001";

    public enum Role {
        READ_ONLY, READ_WRITE, ADMIN;

        static Role parse(String s) {
            return valueOf(s.toUpperCase(Locale.ROOT).replace('-', '_'));
        }

        public boolean mayWrite() { return this != READ_ONLY; }
    }

    public record Caller(String tenant, Role role) {}

    private final Map<String, Caller> byDigest;

    private Access(Map<String, Caller> byDigest) {
        this.byDigest = byDigest;
    }

    public static Access open() {
        return new Access(null);
    }

    public static Access fromFile(Path file) throws IOException {
        Map<String, Caller> map = new HashMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).trim();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] parts = line.split("\\s+");
            try {
                if (parts.length != 3 || !parts[0].matches("[0-9a-fA-F]{64}")) throw new IllegalArgumentException();
                map.put(parts[0].toLowerCase(Locale.ROOT), new Caller(parts[1], Role.parse(parts[2])));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " line " + (n + 1) + ": expected '<sha256-hex> <tenant> <read-write|read-only|admin>'");
            }
        }
        return new Access(Map.copyOf(map));
    }

    public boolean enabled() {
        return byDigest != null;
    }

    /** The caller behind an {@code Authorization} header, or a 401 refusal. */
    public Caller authenticate(String authorization) {
        if (byDigest == null) return new Caller(DEFAULT_TENANT, Role.ADMIN);
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7))
            throw new Refusal(Reason.UNAUTHORIZED, "missing bearer token");
        Caller caller = byDigest.get(sha256(authorization.substring(7).trim()));
        if (caller == null) throw new Refusal(Reason.UNAUTHORIZED, "unknown bearer token");
        return caller;
    }

    public static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
