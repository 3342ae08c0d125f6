package io.queenkv.node.access;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.Sha256;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;

/**
 * Who is calling. Without a tokens file every request is the default tenant with full rights. With
 * one, each bearer token maps to a tenant and a role; only the tokens' SHA-256 digests are held.
 *
 * <p>Tokens file: one token per line, {@code <sha256-hex-of-token> <tenant> <role>}; blank lines and
 * lines starting with {@code #} are ignored. Roles: {@code read-write}, {@code read-only}, {@code admin}.
 *
 * <p>The file is looked at again at most once every {@link #RECHECK_NANOS} ns: when its content
 * changed (a Secret updated in place, a file replaced), the new tokens take over without a restart.
 * A changed file that does not parse is refused with a warning, and the tokens in force stay.
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

    static final long RECHECK_NANOS = 1_000_000_000L;
    private static final Logger LOG = LoggerFactory.getLogger(Access.class);

    /** The tokens in force and the file content they came from. */
    private record Tokens(Map<String, Caller> byDigest, byte[] source) {}

    private final Path file;
    private final LongSupplier nanoClock;
    private volatile Tokens tokens;
    private final AtomicLong lastCheck = new AtomicLong();

    private Access(Path file, Tokens tokens, LongSupplier nanoClock) {
        this.file = file;
        this.tokens = tokens;
        this.nanoClock = nanoClock;
        this.lastCheck.set(nanoClock.getAsLong());
    }

    public static Access open() {
        return new Access(null, null, System::nanoTime);
    }

    public static Access fromFile(Path file) throws IOException {
        return fromFile(file, System::nanoTime);
    }

    static Access fromFile(Path file, LongSupplier nanoClock) throws IOException {
        byte[] content = Files.readAllBytes(file);
        return new Access(file, new Tokens(parse(file, content), content), nanoClock);
    }

    private static Map<String, Caller> parse(Path file, byte[] content) throws IOException {
        Map<String, Caller> map = new HashMap<>();
        List<String> lines = new String(content, StandardCharsets.UTF_8).lines().toList();
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
        return Map.copyOf(map);
    }

    public boolean enabled() {
        return file != null;
    }

    /** Re-reads the tokens file when it changed, at most once every {@link #RECHECK_NANOS}. */
    private Tokens current() {
        long now = nanoClock.getAsLong(), last = lastCheck.get();
        if (now - last >= RECHECK_NANOS && lastCheck.compareAndSet(last, now)) {
            try {
                byte[] content = Files.readAllBytes(file);
                if (!java.util.Arrays.equals(content, tokens.source())) {
                    tokens = new Tokens(parse(file, content), content);
                    LOG.info("tokens file {} changed: {} tokens in force", file, tokens.byDigest().size());
                }
            } catch (IOException e) {
                LOG.warn("tokens file {} changed but cannot be used, keeping the tokens in force: {}", file, e.getMessage());
            }
        }
        return tokens;
    }

    /** The caller behind an {@code Authorization} header, or a 401 refusal. */
    public Caller authenticate(String authorization) {
        if (file == null) return new Caller(DEFAULT_TENANT, Role.ADMIN);
        Map<String, Caller> byDigest = current().byDigest();
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7))
            throw new Refusal(Reason.UNAUTHORIZED, "missing bearer token");
        Caller caller = byDigest.get(sha256(authorization.substring(7).trim()));
        if (caller == null) throw new Refusal(Reason.UNAUTHORIZED, "unknown bearer token");
        return caller;
    }

    public static String sha256(String token) {
        return Sha256.hexDigestOf(token.getBytes(StandardCharsets.UTF_8));
    }
}
