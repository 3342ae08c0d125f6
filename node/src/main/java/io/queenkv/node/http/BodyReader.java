package io.queenkv.node.http;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;

import org.eclipse.jetty.http.HttpException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.javalin.http.Context;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;

/**
 * Reads request bodies as their bytes arrive; a declared Content-Length caps the array that holds
 * one but never sizes it ahead of the bytes: a client that declares 32 MiB and sends nothing costs a
 * few KiB. The bytes held by all bodies being read
 * at once are bounded by {@link #BUDGET_BYTES}; a body that would pass it is refused with 503
 * {@code kv_retry} (the node is busy, not the call wrong). A body must arrive whole within
 * {@link #DEADLINE} of the node starting to read it, and after the first {@link #GRACE} at
 * {@link #MIN_BYTES_PER_SECOND} or faster on average: a trickle is refused with 408 at the next byte it sends. A body that stops arriving
 * at all is ended by Jetty's idle timeout (see {@link HttpServer}).
 */
final class BodyReader {
    private static final Logger LOG = LoggerFactory.getLogger(BodyReader.class);
    static final Duration DEADLINE = Duration.ofSeconds(30);
    /** A slow start (a TCP window, a client that sends the head first) is no trickle. */
    static final Duration GRACE = Duration.ofSeconds(1);
    static final long MIN_BYTES_PER_SECOND = 16 * 1024;
    /** A quarter of the heap, at least 64 MiB: room for a few full-size calls and their parsed trees. */
    static final long BUDGET_BYTES = Math.max(64L << 20, Runtime.getRuntime().maxMemory() / 4);
    private static final int KIB = 1024;
    private static final int CHUNK_BYTES = 16 * KIB;
    /** The node's budget, in KiB, for the bytes of the bodies being read. */
    private final Semaphore budgetKib = new Semaphore((int) Math.min(Integer.MAX_VALUE, BUDGET_BYTES / KIB));

    /** The whole body, or a refusal: 413 past {@code limit}, 408 when it does not arrive in time. */
    byte[] read(Context ctx, long limit) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > limit) throw tooLarge(declared, limit);
        long started = System.nanoTime();
        int reservedKib = 0;
        try (InputStream in = ctx.req().getInputStream()) {
            // One byte past a small declared length, so its end is read without a 16 KiB buffer.
            byte[] chunk = new byte[(int) Math.min(CHUNK_BYTES, declared >= 0 ? declared + 1 : CHUNK_BYTES)];
            byte[] body = new byte[0];
            int size = 0;
            for (int n; (n = in.read(chunk)) >= 0; ) {
                if (size + (long) n > limit) throw tooLarge(size + (long) n, limit);
                if (size + n > body.length) {
                    int grown = capacity(body.length, size + n, declared >= 0 ? declared : limit);
                    int neededKib = (grown + KIB - 1) / KIB;
                    if (neededKib > reservedKib) {
                        if (!budgetKib.tryAcquire(neededKib - reservedKib))
                            throw new Refusal(Reason.KV_RETRY, "this node is reading as many request bodies as it has memory for; try again");
                        reservedKib = neededKib;
                    }
                    body = Arrays.copyOf(body, grown);
                }
                System.arraycopy(chunk, 0, body, size, n);
                size += n;
                checkPace(size, System.nanoTime() - started);
            }
            return size == body.length ? body : Arrays.copyOf(body, size);
        } catch (IOException | RuntimeException e) {
            if (e instanceof Refusal r) throw r;
            LOG.debug("a request body could not be read", e);
            if (timedOut(e)) throw new Refusal(Reason.REQUEST_TIMEOUT, "the body stalled or arrived too slowly");
            throw new Refusal(Reason.KV_BAD_BODY, "the body could not be read (it ended before its declared length, or the client went away)");
        } finally {
            budgetKib.release(reservedKib);
        }
    }

    /**
     * The body's next capacity, reserved from the budget before it is allocated: room for what
     * arrived, and ahead of it 64 KiB or as much again (whichever is more), never past {@code most}
     * (the declared length, else the limit). A body that arrives as declared ends in an array of its
     * exact size, and a declared length alone reserves nothing.
     */
    private static int capacity(int current, int needed, long most) {
        return (int) Math.max(needed, Math.min(most, Math.max(2L * current, needed + 64L * KIB)));
    }

    private static void checkPace(long bytes, long elapsedNanos) {
        if (elapsedNanos > DEADLINE.toNanos())
            throw new Refusal(Reason.REQUEST_TIMEOUT, "the body did not arrive within " + DEADLINE.toSeconds() + " s");
        if (elapsedNanos > GRACE.toNanos() && bytes < MIN_BYTES_PER_SECOND * elapsedNanos / 1_000_000_000L)
            throw new Refusal(Reason.REQUEST_TIMEOUT, "the body arrives slower than " + MIN_BYTES_PER_SECOND / 1024 + " KiB/s");
    }

    private static boolean timedOut(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException) return true;
            if (t instanceof HttpException http && http.getCode() == 408) return true;
        }
        return false;
    }

    private static Refusal tooLarge(long size, long limit) {
        return new Refusal(Reason.PAYLOAD_TOO_LARGE, "the body is over the limit of " + limit + " bytes (" + size + ")");
    }
}
