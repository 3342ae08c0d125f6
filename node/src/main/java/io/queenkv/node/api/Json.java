package io.queenkv.node.api;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;

/** The one JSON mapper of the node: numbers stay exact, trailing garbage is refused. */
public final class Json {
    /**
     * How deep a request body may nest. Answers wrap a stored value a few levels deeper than the
     * call did; this keeps every answer well inside the 1000 levels common parsers (Jackson's
     * default included) accept, so a stored value can always be read back.
     */
    public static final int MAX_NESTING_DEPTH = 512;

    public static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build()).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    private Json() {}

    /**
     * Parses a request body, refusing anything that is not one JSON document of strict UTF-8.
     * Jackson itself decodes overlong forms and encoded surrogates without complaint (it would store
     * {@code k\xc0\xaf} as {@code k/}), so the bytes are checked with the JDK's strict decoder first.
     */
    public static JsonNode parseBody(byte[] body) {
        if (!isStrictUtf8(body)) throw new Refusal(Reason.KV_BAD_BODY, "body is not valid UTF-8 (overlong forms and encoded surrogates included)");
        JsonParser parser = null;
        try {
            parser = MAPPER.createParser(body);
            JsonNode node = MAPPER.readTree(parser);
            if (node == null || node.isMissingNode()) throw new Refusal(Reason.KV_BAD_BODY, "body is empty");
            return node;
        } catch (NumberFormatException e) {
            // Jackson reads the digits but BigDecimal cannot hold the number (an exponent past 32 bits).
            throw numberOutOfRange(parser);
        } catch (StreamConstraintsException e) {
            throw new Refusal(Reason.KV_BAD_BODY, "body is past a JSON parser limit (nesting deeper than " + MAX_NESTING_DEPTH
                    + " levels, or a number or string too long)");
        } catch (JsonProcessingException e) {
            throw new Refusal(Reason.KV_BAD_BODY, "body is not valid JSON" + where(e.getLocation()) + ": " + firstLine(e.getOriginalMessage()));
        } catch (java.io.IOException e) {
            throw new Refusal(Reason.KV_BAD_BODY, "body could not be parsed");
        } finally {
            if (parser != null) closeQuietly(parser);
        }
    }

    /**
     * A number no field can hold, refused with the reason of the op field it was given for
     * ({@code ttlSeconds} → kv_bad_ttl, {@code expect} → kv_bad_expect), else kv_bad_request.
     */
    private static Refusal numberOutOfRange(JsonParser parser) {
        JsonStreamContext at = parser == null ? null : parser.getParsingContext();
        String field = at == null ? null : at.getCurrentName();
        Integer opIndex = opIndexOf(at);
        boolean opField = opIndex != null || (at != null && at.getParent() != null && at.getParent().inRoot());
        Reason reason = !opField ? Reason.KV_BAD_REQUEST
                : "ttlSeconds".equals(field) ? Reason.KV_BAD_TTL
                : "expect".equals(field) ? Reason.KV_BAD_EXPECT
                : Reason.KV_BAD_REQUEST;
        String detail = (field == null ? "a number" : "'" + field + "'") + " is out of the range any field can hold";
        return opIndex == null ? new Refusal(reason, detail) : Refusal.atOp(opIndex, reason, detail);
    }

    /** The op index when {@code at} is an op object of a batch ({@code [op…]} or {@code {"operations":[op…]}}). */
    private static Integer opIndexOf(JsonStreamContext at) {
        if (at == null || !at.inObject()) return null;
        JsonStreamContext list = at.getParent();
        if (list == null || !list.inArray()) return null;
        JsonStreamContext above = list.getParent();
        boolean batch = above.inRoot() || (above.inObject() && "operations".equals(above.getCurrentName()) && above.getParent().inRoot());
        return batch ? list.getCurrentIndex() : null;
    }

    /** Whether {@code bytes} are UTF-8 as the standard defines it: no overlong forms, no surrogates, nothing past U+10FFFF. */
    static boolean isStrictUtf8(byte[] bytes) {
        boolean ascii = true;
        for (byte b : bytes) if (b < 0) { ascii = false; break; }
        if (ascii) return true;
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(8192);
        while (true) {
            CoderResult result = decoder.decode(in, out, true);
            if (result.isError()) return false;
            if (result.isUnderflow()) return !decoder.flush(out.clear()).isError();
            out.clear();
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

    private static String where(JsonLocation location) {
        return location == null || location.getLineNr() < 1 ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    /** The parser's own words, without the hints that name its feature classes ("enable `JsonReadFeature…`"). */
    private static String firstLine(String message) {
        if (message == null) return "";
        int end = message.indexOf('\n');
        String line = end < 0 ? message : message.substring(0, end);
        int hint = line.indexOf('`');
        if (hint >= 0) line = line.substring(0, hint).replaceAll("[\\s:;(]*(enable|disable)?[\\s(]*$", "");
        return line;
    }

    private static void closeQuietly(JsonParser parser) {
        try {
            parser.close();
        } catch (java.io.IOException ignored) {
            // a parser over a byte array holds nothing to release
        }
    }
}
