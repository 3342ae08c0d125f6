package io.queenkv.node.http;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.regex.Pattern;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.api.ResultJson;
import io.queenkv.node.kv.Refusal.Reason;

/**
 * Errors Jetty answers before a request reaches a route (a path Jetty cannot parse, such as one
 * holding {@code %00}; a malformed request line or header; headers or a URI too long; an HTTP/2
 * preface) get the contract's JSON error body, with a reason from {@link Reason}, instead of
 * Jetty's HTML page or bare status line.
 */
final class JsonErrorHandler extends ErrorHandler {
    private static final Logger LOG = LoggerFactory.getLogger(JsonErrorHandler.class);
    /** Text that names a class or a package (a library's exception message), which no detail shows. */
    private static final Pattern NAMES_CODE = Pattern.compile("\\b[a-z]+\\.[a-z]+\\.[a-zA-Z]|[A-Z]\\w*(Exception|Error)\\b|`");

    /** Jetty answers only GET, POST and HEAD with a body; a made-up method or an HTTP/2 preface deserves one too. */
    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        Reason reason = reasonFor(code, cause);
        if (cause != null) LOG.debug("refused before routing with {}", code, cause);
        byte[] body = ResultJson.error(reason, "the request was refused before routing: " + describe(code, message, cause));
        response.setStatus(reason.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /** Jetty's status as a reason of ours; a status we do not list answers as the nearest one we do. */
    static Reason reasonFor(int code, Throwable cause) {
        return switch (code) {
            // A path Jetty refuses holds a character no key or namespace may hold (NUL, an illegal escape).
            case 400 -> mentionsPath(cause) || badEscape(cause) ? Reason.KV_BAD_KEY : Reason.KV_BAD_REQUEST;
            case 404 -> Reason.NOT_FOUND;
            case 408 -> Reason.REQUEST_TIMEOUT;
            case 413 -> Reason.PAYLOAD_TOO_LARGE;
            case 414 -> Reason.URI_TOO_LONG;
            case 426 -> Reason.UPGRADE_REQUIRED;
            case 429 -> Reason.RATE_LIMITED;
            case 431 -> Reason.HEADERS_TOO_LARGE;
            case 501 -> Reason.NOT_IMPLEMENTED;
            case 503 -> Reason.KV_RETRY;
            case 505 -> Reason.HTTP_VERSION_NOT_SUPPORTED;
            default -> code >= 400 && code < 500 ? Reason.KV_BAD_REQUEST : Reason.INTERNAL;
        };
    }

    /** Jetty's decoder says "!hex" of a % not followed by two hex digits. */
    private static boolean badEscape(Throwable cause) {
        return anyMessage(cause, m -> m.startsWith("!hex"));
    }

    private static boolean mentionsPath(Throwable cause) {
        return anyMessage(cause, m -> m.toLowerCase(Locale.ROOT).contains("path"));
    }

    /** Whether a message along the cause chain matches (Jetty wraps the real reason in generic ones). */
    private static boolean anyMessage(Throwable cause, java.util.function.Predicate<String> test) {
        for (Throwable t = cause; t != null; t = t.getCause())
            if (t.getMessage() != null && test.test(t.getMessage())) return true;
        return false;
    }

    /**
     * The innermost plain message: Jetty wraps the real reason ("Illegal character in path") in
     * generic ones. A message that names a class says nothing to a caller; the status text stands in.
     */
    private static String describe(int code, String message, Throwable cause) {
        if (badEscape(cause)) return "a malformed %-escape in the path (% must be followed by two hex digits)";
        String detail = plain(message) ? message : HttpStatus.getMessage(code);
        for (Throwable t = cause; t != null; t = t.getCause())
            if (plain(t.getMessage())) detail = t.getMessage();
        return detail;
    }

    /** A message a caller can read: short, naming no class, and not Jetty's "414: null" for a message it lacks. */
    private static boolean plain(String text) {
        return text != null && !text.isBlank() && text.length() < 200 && !NAMES_CODE.matcher(text).find() && !text.endsWith("null");
    }
}
