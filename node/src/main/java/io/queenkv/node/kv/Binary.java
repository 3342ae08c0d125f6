package io.queenkv.node.kv;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/** The primitives of the binary formats: varints, length-prefixed UTF-8, nullable fields. */
final class Binary {
    private Binary() {}

    static void writeVarLong(DataOutput out, long v) throws IOException {
        while ((v & ~0x7FL) != 0) {
            out.writeByte((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    static long readVarLong(DataInput in) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = in.readByte();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) return v;
        }
        throw new IOException("malformed varint");
    }

    static int readVarInt(DataInput in) throws IOException {
        long v = readVarLong(in);
        if (v < 0 || v > Integer.MAX_VALUE) throw new IOException("length out of range: " + v);
        return (int) v;
    }

    /** A count of items that take at least one byte each: never more than the input still holds. */
    static int readCount(DataInput in) throws IOException {
        int count = readVarInt(in);
        if (in instanceof InputStream stream && count > stream.available())
            throw new IOException("count " + count + " past the end of the input");
        return count;
    }

    static void writeString(DataOutput out, String s) throws IOException {
        writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    static String readString(DataInput in) throws IOException {
        return new String(readBytes(in), StandardCharsets.UTF_8);
    }

    /** A length, then the bytes: how strings and JSON values are written. */
    static void writeBytes(DataOutput out, byte[] bytes) throws IOException {
        writeVarLong(out, bytes.length);
        out.write(bytes);
    }

    static byte[] readBytes(DataInput in) throws IOException {
        int length = readVarInt(in);
        // A corrupt length must not allocate gigabytes: never more than the input still holds. Asked
        // only of lengths past 64 KiB, since asking may cost a system call.
        if (length > (1 << 16) && in instanceof InputStream stream && length > stream.available())
            throw new IOException("string of " + length + " bytes past the end of the input");
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    static void writeNullableString(DataOutput out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) writeString(out, s);
    }

    static String readNullableString(DataInput in) throws IOException {
        return in.readBoolean() ? readString(in) : null;
    }

    /** Written as a nullable string of its text (the same bytes). */
    static void writeJson(DataOutput out, JsonValue v) throws IOException {
        out.writeBoolean(v != null);
        if (v != null) writeBytes(out, v.utf8());
    }

    static JsonValue readJson(DataInput in) throws IOException {
        return in.readBoolean() ? JsonValue.ofUtf8(readBytes(in)) : null;
    }

    static void writeDecimal(DataOutput out, BigDecimal d) throws IOException {
        writeNullableString(out, d == null ? null : d.toString());
    }

    static BigDecimal readDecimal(DataInput in) throws IOException {
        String s = readNullableString(in);
        return s == null ? null : new BigDecimal(s);
    }
}
