package io.queenkv.node.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.queenkv.node.kv.Refusal;

/** The one JSON mapper of the node: numbers stay exact, trailing garbage is refused. */
public final class Json {
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    private Json() {}

    /** Parses a request body, refusing anything that is not one JSON document. */
    public static JsonNode parseBody(byte[] body) {
        try {
            JsonNode node = MAPPER.readTree(body);
            if (node == null || node.isMissingNode()) throw new Refusal(Refusal.Reason.KV_BAD_BODY, "body is empty");
            return node;
        } catch (java.io.IOException e) {
            throw new Refusal(Refusal.Reason.KV_BAD_BODY, "body is not valid JSON: " + firstLine(e.getMessage()));
        }
    }

    /** Compact JSON text of a node, as stored and measured. */
    public static String compact(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String firstLine(String message) {
        if (message == null) return "";
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
