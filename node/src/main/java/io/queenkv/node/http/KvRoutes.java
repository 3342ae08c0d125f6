package io.queenkv.node.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;

import io.javalin.http.Context;
import io.queenkv.node.Sha256;
import io.queenkv.node.access.Access;
import io.queenkv.node.access.RateLimiter;
import io.queenkv.node.api.CallParser;
import io.queenkv.node.api.Json;
import io.queenkv.node.api.ResultJson;
import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.CallRules;
import io.queenkv.node.kv.EntryCodec;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Outcome;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;
import io.queenkv.node.kv.Result;
import io.queenkv.node.kv.Settings;
import io.queenkv.node.raft.ReplicatedKv;

/** The KV routes: parse and validate, rate-limit, hand to Raft, render. Every refusal is thrown. */
final class KvRoutes {
    static final String KV_PREFIX = "/api/v1/kv/";
    private static final long CALL_TIMEOUT_SECONDS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(KvRoutes.class);

    private final ReplicatedKv kv;
    private final Access access;
    private final RateLimiter rateLimiter;
    private final CallSlots slots;
    private final BodyReader bodies;

    KvRoutes(ReplicatedKv kv, Access access, RateLimiter rateLimiter, CallSlots slots, BodyReader bodies) {
        this.kv = kv;
        this.access = access;
        this.rateLimiter = rateLimiter;
        this.slots = slots;
        this.bodies = bodies;
    }

    /** {@code POST /api/v1/kv}. */
    void batch(Context ctx) {
        Access.Caller caller = access.authenticate(ctx.header("Authorization"));
        try (CallSlots.Slot slot = slots.take(caller, ctx.ip())) {
            Settings settings = kv.local(KvEngine::settings);
            List<Op> ops = CallParser.parseBatch(Json.parseBody(bodies.read(ctx, settings.maxBodyBytes())), settings);
            if (ops.isEmpty()) {
                respond(ctx, 200, ResultJson.batch(new Outcome.Completed(List.of()), List.of()));
                return;
            }
            Outcome outcome = call(ctx, caller, settings, ops);
            respond(ctx, 200, ResultJson.batch(outcome, ops.stream().map(Op::name).toList()));
        }
    }

    /** {@code GET|PUT|DELETE /api/v1/kv/:ns/*key}. */
    void single(Context ctx) {
        if (ctx.queryString() != null) throw new Refusal(Reason.KV_NO_QUERY_STRING, "single-key routes take no query string");
        Access.Caller caller = access.authenticate(ctx.header("Authorization"));
        try (CallSlots.Slot slot = slots.take(caller, ctx.ip())) {
            single(ctx, caller);
        }
    }

    private void single(Context ctx, Access.Caller caller) {
        String[] nsAndKey = nsAndKey(ctx.req().getRequestURI());
        Settings settings = kv.local(KvEngine::settings);
        String method = ctx.method().name();
        String opName = switch (method) {
            case "GET", "HEAD" -> "get";
            case "PUT" -> "put";
            default -> "delete";
        };
        JsonNode body = null;
        if (!opName.equals("get")) {
            byte[] bytes = bodies.read(ctx, settings.maxBodyBytes());
            if (bytes.length > 0 || method.equals("PUT")) body = Json.parseBody(bytes);
        }
        Op op = CallParser.parseSingle(opName, nsAndKey[0], nsAndKey[1], body, settings);
        Outcome outcome = call(ctx, caller, settings, List.of(op));
        if (outcome instanceof Outcome.Completed done && done.results().get(0) instanceof Result.GetResult get && get.row() != null)
            ctx.header("ETag", "\"" + get.row().version() + "\"");
        respond(ctx, 200, ResultJson.single(outcome, opName));
    }

    /** Rate-limits, then writes through the log or reads behind the ReadIndex barrier. */
    private Outcome call(Context ctx, Access.Caller caller, Settings settings, List<Op> ops) {
        boolean write = ops.stream().anyMatch(Op::isWrite);
        if (write && !caller.role().mayWrite()) throw new Refusal(Reason.FORBIDDEN, "this token may only read");
        long retryAfter = write
                ? rateLimiter.acquire(caller.tenant(), RateLimiter.Kind.WRITE, settings.writeRate())
                : rateLimiter.acquire(caller.tenant(), RateLimiter.Kind.READ, settings.readRate());
        if (retryAfter > 0) {
            ctx.header("Retry-After", Long.toString(retryAfter));
            throw new Refusal(Reason.RATE_LIMITED, (write ? "write" : "read") + " calls of this tenant are over the rate limit");
        }
        if (!write) return await(kv.read(caller.tenant(), ops));
        String idempotencyKey = ctx.header("Idempotency-Key");
        String fingerprint = null;
        if (idempotencyKey != null) {
            if (idempotencyKey.isBlank() || idempotencyKey.length() > CallRules.MAX_IDEMPOTENCY_KEY_LENGTH)
                throw new Refusal(Reason.KV_BAD_REQUEST, "Idempotency-Key must be 1 to " + CallRules.MAX_IDEMPOTENCY_KEY_LENGTH + " characters");
            fingerprint = fingerprint(caller.tenant(), ops);
        }
        Outcome outcome = await(kv.write(new Entry.WriteCall(0, caller.tenant(), idempotencyKey, fingerprint, ops)));
        if (outcome instanceof Outcome.IdempotencyKeyReused)
            throw new Refusal(Reason.KV_IDEMPOTENCY_KEY_REUSED, "this Idempotency-Key was used with a different call");
        return outcome;
    }

    /** Waits for a Raft call; one the caller gives up on is cancelled (its thread interrupted), not left running. */
    private static Outcome await(Future<Outcome> future) {
        try {
            return future.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new Refusal(Reason.KV_TIMEOUT, "the cluster did not answer in " + CALL_TIMEOUT_SECONDS + " s; the outcome of a write is unknown");
        } catch (ExecutionException e) {
            throw ReplicatedKv.unavailable(e.getCause());
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new Refusal(Reason.KV_RETRY, "interrupted");
        }
    }

    /**
     * Identifies a call's content, so a reused Idempotency-Key with a different call is caught: the
     * SHA-256 of the call as {@link EntryCodec#encodeQuery} writes it, streamed into the digest.
     */
    private static String fingerprint(String tenant, List<Op> ops) {
        MessageDigest digest = Sha256.newDigest();
        EntryCodec.writeQuery(new EntryCodec.ReadQuery(tenant, ops), new DigestOutputStream(OutputStream.nullOutputStream(), digest));
        return Sha256.hexValueOf(digest);
    }

    /**
     * Splits the raw request path into ns and key; the key is the rest of the path, decoded once. A
     * missing ns or key comes back empty, so the op's own checks refuse it (kv_bad_namespace, kv_bad_key).
     */
    static String[] nsAndKey(String rawPath) {
        String rest = rawPath.substring(Math.min(rawPath.length(), KV_PREFIX.length()));
        int slash = rest.indexOf('/');
        if (slash < 0) return new String[] {decode(rest), ""};
        return new String[] {decode(rest.substring(0, slash)), decode(rest.substring(slash + 1))};
    }

    /** Percent-decodes once ({@code +} stays {@code +}); escapes that are not valid UTF-8 are refused, never replaced. */
    static String decode(String s) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); ) {
            char c = s.charAt(i);
            if (c == '%') {
                int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(s.charAt(i + 2), 16);
                if (lo < 0) throw new Refusal(Reason.KV_BAD_KEY, "the path has a malformed %-escape");
                bytes.write(hi << 4 | lo);
                i += 3;
            } else {
                int end = i + Character.charCount(s.codePointAt(i));
                bytes.writeBytes(s.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new Refusal(Reason.KV_BAD_KEY, "the path's %-escapes are not valid UTF-8");
        }
    }

    /**
     * Writes the answer now, on the handler's thread, so the call's slot ({@link CallSlots}) is held
     * until a client that does not read its answer has timed out.
     */
    static void respond(Context ctx, int status, byte[] json) {
        ctx.status(status).contentType("application/json");
        ctx.res().setContentLength(json.length);
        try {
            ctx.res().getOutputStream().write(json);
            ctx.res().flushBuffer();
        } catch (IOException e) {
            // The client went away or stopped reading: nobody is left to answer.
            LOG.debug("an answer could not be written", e);
        }
    }
}
