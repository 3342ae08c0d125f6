package io.queenkv.node.kv;

/**
 * A call refused before anything was written: it carries the status, the {@code error} and the
 * {@code reason} of the contract, and a detail naming the op.
 */
public final class Refusal extends RuntimeException {
    private final Reason reason;

    public Refusal(Reason reason, String detail) {
        super(detail, null, false, false);
        this.reason = reason;
    }

    public static Refusal atOp(int index, Reason reason, String detail) {
        return new Refusal(reason, "op at index " + index + ": " + detail);
    }

    public Reason reason() {
        return reason;
    }

    public String detail() {
        return getMessage();
    }

    /** Every refusal code of the contract, with its HTTP status and {@code error} field. */
    public enum Reason {
        KV_BAD_REQUEST(400, "kv_bad_request"),
        KV_BAD_BODY(400, "kv_bad_request"),
        KV_UNKNOWN_OP(400, "kv_bad_request"),
        KV_BAD_NAMESPACE(400, "kv_bad_request"),
        KV_BAD_KEY(400, "kv_bad_request"),
        KV_PREFIX_REQUIRED(400, "kv_bad_request"),
        KV_EXPIRY_NOT_SPECIFIED(400, "kv_bad_request"),
        KV_BAD_TTL(400, "kv_bad_request"),
        KV_BAD_EXPECT(400, "kv_bad_request"),
        KV_TENANT_NOT_AN_INPUT(400, "kv_bad_request"),
        KV_TOO_MANY_OPS(400, "kv_bad_request"),
        KV_TOO_MANY_KEYS(400, "kv_bad_request"),
        KV_DUPLICATE_KEY_IN_CALL(400, "kv_bad_request"),
        KV_NO_QUERY_STRING(400, "kv_bad_request"),
        KV_FIELD_IN_PATH(400, "kv_bad_request"),
        KV_KEY_TOO_LARGE(413, "payload_too_large"),
        KV_VALUE_TOO_LARGE(413, "payload_too_large"),
        PAYLOAD_TOO_LARGE(413, "payload_too_large"),
        UNAUTHORIZED(401, "unauthorized"),
        FORBIDDEN(403, "forbidden"),
        NOT_FOUND(404, "not_found"),
        /** The body stalled, trickled, or took longer than the body deadline. */
        REQUEST_TIMEOUT(408, "request_timeout"),
        KV_IDEMPOTENCY_KEY_REUSED(409, "kv_conflict"),
        /** Jetty's own refusals, before a route is reached (HTTP/2 preface, headers or URI too long). */
        UPGRADE_REQUIRED(426, "upgrade_required"),
        URI_TOO_LONG(414, "uri_too_long"),
        HEADERS_TOO_LARGE(431, "headers_too_large"),
        RATE_LIMITED(429, "rate_limited"),
        KV_TIMEOUT(503, "kv_unavailable"),
        KV_NO_LEADER(503, "kv_unavailable"),
        KV_RETRY(503, "kv_unavailable"),
        /** A failure of the node itself; the detail never says more than that, the log does. */
        INTERNAL(500, "internal"),
        NOT_IMPLEMENTED(501, "not_implemented"),
        HTTP_VERSION_NOT_SUPPORTED(505, "http_version_not_supported");

        private final int status;
        private final String error;

        Reason(int status, String error) {
            this.status = status;
            this.error = error;
        }

        public int status() {
            return status;
        }

        public String error() {
            return error;
        }

        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
