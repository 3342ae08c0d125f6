package io.queenkv.node.http;

import java.nio.ByteBuffer;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import io.queenkv.node.api.ResultJson;
import io.queenkv.node.kv.Refusal.Reason;

/**
 * Errors Jetty answers before a request reaches a route (a path Jetty cannot parse, such as one
 * holding {@code %00}; a malformed request line or header) get the contract's JSON error body
 * instead of Jetty's HTML page.
 */
final class JsonErrorHandler extends ErrorHandler {
    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        String detail = describe(code, message, cause);
        byte[] body = switch (code) {
            // A path Jetty refuses holds a character no key or namespace may hold (NUL, an illegal escape).
            case 400 -> ResultJson.error(mentionsPath(cause) ? Reason.KV_BAD_KEY : Reason.KV_BAD_REQUEST, detail);
            case 413 -> ResultJson.error(Reason.PAYLOAD_TOO_LARGE, detail);
            default -> {
                String reason = HttpStatus.getMessage(code).toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
                yield ("{\"error\":\"" + reason + "\",\"reason\":\"" + reason + "\",\"detail\":"
                        + io.queenkv.node.api.Json.MAPPER.valueToTree(detail) + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            }
        };
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    private static boolean mentionsPath(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause())
            if (t.getMessage() != null && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("path")) return true;
        return false;
    }

    /** The innermost message: Jetty wraps the real reason ("Illegal character in path") in generic ones. */
    private static String describe(int code, String message, Throwable cause) {
        String detail = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
        for (Throwable t = cause; t != null; t = t.getCause())
            if (t.getMessage() != null && !t.getMessage().isBlank()) detail = t.getMessage();
        return "the request was refused before routing: " + detail;
    }
}
