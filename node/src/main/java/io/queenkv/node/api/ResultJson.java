package io.queenkv.node.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;

import io.queenkv.node.kv.JsonValue;
import io.queenkv.node.kv.Outcome;
import io.queenkv.node.kv.Outcome.Completed;
import io.queenkv.node.kv.Outcome.PreconditionFailed;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Result;
import io.queenkv.node.kv.Result.GetManyResult;
import io.queenkv.node.kv.Result.GetPrefixResult;
import io.queenkv.node.kv.Result.GetResult;
import io.queenkv.node.kv.Result.ReadRow;
import io.queenkv.node.kv.Result.WriteResult;
import io.queenkv.node.kv.Row;

/** Renders answers in the wire shapes of the contract. Stored values are written as their raw JSON. */
public final class ResultJson {
    private ResultJson() {}

    /** The batch answer: {@code {"results":[…]}}, or the {@code ok:false} body of a required abort. */
    public static byte[] batch(Outcome outcome, List<String> opNames) {
        return render(g -> {
            if (outcome instanceof PreconditionFailed p) {
                writePrecondition(g, p);
                return;
            }
            g.writeStartObject();
            g.writeArrayFieldStart("results");
            for (Result r : ((Completed) outcome).results()) writeResult(g, r, opNames.get(r.index()));
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    /** A single-key route answers the bare element (or the abort body). */
    public static byte[] single(Outcome outcome, String opName) {
        return render(g -> {
            if (outcome instanceof PreconditionFailed p) writePrecondition(g, p);
            else writeResult(g, ((Completed) outcome).results().get(0), opName);
        });
    }

    public static byte[] error(Refusal.Reason reason, String detail) {
        return render(g -> {
            g.writeStartObject();
            g.writeStringField("error", reason.error());
            g.writeStringField("reason", reason.wire());
            g.writeStringField("detail", detail == null ? "" : wellFormed(detail));
            g.writeEndObject();
        });
    }

    /**
     * A detail may quote what the caller sent (an unknown op's name); a lone surrogate there would make
     * the error itself unwritable, so it is shown as U+FFFD. Only details are touched, never data.
     */
    private static String wellFormed(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pairStart = Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
            if (pairStart) {
                if (out != null) out.append(c).append(text.charAt(i + 1));
                i++;
            } else if (Character.isSurrogate(c)) {
                if (out == null) out = new StringBuilder(text.length()).append(text, 0, i);
                out.append('\uFFFD');
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    private static void writePrecondition(JsonGenerator g, PreconditionFailed p) throws IOException {
        g.writeStartObject();
        g.writeBooleanField("ok", false);
        g.writeStringField("reason", "kv_precondition");
        g.writeNumberField("failedIndex", p.failedIndex());
        g.writeStringField("kvReason", p.kvReason().wire());
        g.writeNumberField("version", p.version());
        g.writeFieldName("value");
        writeValue(g, p.value() == null ? JsonValue.NULL : p.value());
        g.writeEndObject();
    }

    private static void writeResult(JsonGenerator g, Result r, String opName) throws IOException {
        g.writeStartObject();
        g.writeNumberField("index", r.index());
        g.writeStringField("op", opName);
        if (r instanceof GetResult get) {
            g.writeBooleanField("found", get.row() != null);
            g.writeStringField("key", get.key());
            if (get.row() != null) writeRowFields(g, get.row(), false);
        } else if (r instanceof GetManyResult many) {
            writeRows(g, many.rows());
            g.writeArrayFieldStart("missing");
            for (String key : many.missing()) g.writeString(key);
            g.writeEndArray();
            g.writeBooleanField("truncated", many.truncated());
        } else if (r instanceof GetPrefixResult prefix) {
            writeRows(g, prefix.rows());
            g.writeBooleanField("truncated", prefix.truncated());
            g.writeStringField("nextAfter", prefix.nextAfter());
        } else if (r instanceof WriteResult w) {
            g.writeBooleanField("applied", w.applied());
            if (!w.applied()) g.writeStringField("reason", w.reason().wire());
            g.writeStringField("key", w.key());
            if (w.value() != null) {
                g.writeFieldName("value");
                writeValue(g, w.value());
            }
            g.writeNumberField("version", w.version());
        }
        g.writeEndObject();
    }

    private static void writeRows(JsonGenerator g, List<ReadRow> rows) throws IOException {
        g.writeArrayFieldStart("rows");
        for (ReadRow row : rows) {
            g.writeStartObject();
            g.writeStringField("key", row.key());
            writeRowFields(g, row, true);
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** value (unless keys-only), version, expiresAt, updatedAt. */
    private static void writeRowFields(JsonGenerator g, ReadRow row, boolean valueOptional) throws IOException {
        if (row.value() != null || !valueOptional) {
            g.writeFieldName("value");
            writeValue(g, row.value() == null ? JsonValue.NULL : row.value());
        }
        g.writeNumberField("version", row.version());
        if (row.expiresAt() == Row.NEVER) g.writeNullField("expiresAt");
        else g.writeStringField("expiresAt", Timestamps.format(row.expiresAt()));
        g.writeStringField("updatedAt", Timestamps.format(row.updatedAt()));
    }

    private static void writeValue(JsonGenerator g, JsonValue value) throws IOException {
        g.writeRawValue(new RawUtf8(value.utf8()));
    }

    /**
     * A stored value's UTF-8 bytes as Jackson's raw text, copied into the answer as they are (no
     * String in between). Only the unquoted forms are ever asked of a raw value.
     */
    private record RawUtf8(byte[] utf8) implements SerializableString {
        @Override public String getValue() { return new String(utf8, StandardCharsets.UTF_8); }
        @Override public int charLength() { return getValue().length(); }
        @Override public byte[] asUnquotedUTF8() { return utf8; }
        @Override public int appendUnquotedUTF8(byte[] buffer, int offset) {
            if (offset + utf8.length > buffer.length) return -1;
            System.arraycopy(utf8, 0, buffer, offset, utf8.length);
            return utf8.length;
        }
        @Override public int appendUnquoted(char[] buffer, int offset) {
            String text = getValue();
            if (offset + text.length() > buffer.length) return -1;
            text.getChars(0, text.length(), buffer, offset);
            return text.length();
        }
        @Override public int writeUnquotedUTF8(OutputStream out) throws IOException {
            out.write(utf8);
            return utf8.length;
        }
        @Override public int putUnquotedUTF8(ByteBuffer buffer) {
            if (utf8.length > buffer.remaining()) return -1;
            buffer.put(utf8);
            return utf8.length;
        }
        @Override public char[] asQuotedChars() { throw quoted(); }
        @Override public byte[] asQuotedUTF8() { throw quoted(); }
        @Override public int appendQuotedUTF8(byte[] buffer, int offset) { throw quoted(); }
        @Override public int appendQuoted(char[] buffer, int offset) { throw quoted(); }
        @Override public int writeQuotedUTF8(OutputStream out) { throw quoted(); }
        @Override public int putQuotedUTF8(ByteBuffer buffer) { throw quoted(); }

        private static UnsupportedOperationException quoted() {
            return new UnsupportedOperationException("a raw JSON value is never written as a quoted string");
        }
    }

    private interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    private static byte[] render(Body body) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(256);
            try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(out)) {
                body.write(g);
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
