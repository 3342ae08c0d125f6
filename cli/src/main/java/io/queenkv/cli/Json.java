package io.queenkv.cli;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** The CLI's one JSON mapper: numbers keep their exact decimal text, one document per input. */
final class Json {
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Json() {}

    /** Parses one JSON document; {@code what} names the input in the error. */
    static JsonNode parse(byte[] bytes, String what) {
        try {
            JsonNode node = MAPPER.readTree(bytes);
            if (node == null || node.isMissingNode()) throw CliFailure.usage(what + " is empty, not JSON");
            return node;
        } catch (JsonProcessingException e) {
            throw CliFailure.usage(what + " is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw CliFailure.usage(what + " cannot be read as JSON: " + e.getMessage());
        }
    }

    /** Compact JSON text. */
    static String text(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }
}
