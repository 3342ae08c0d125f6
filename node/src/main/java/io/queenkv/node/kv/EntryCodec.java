package io.queenkv.node.kv;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

import io.queenkv.node.kv.Entry.ChangeSettings;
import io.queenkv.node.kv.Entry.Sweep;
import io.queenkv.node.kv.Entry.WriteCall;
import io.queenkv.node.kv.Entry.WriteCalls;

/**
 * Log entries as compact binary: a format version byte, the instant (8 bytes, so the leader stamps
 * it into an encoded entry without decoding the rest, {@link #stampInstant}), a kind tag, the body.
 * Decoding is strict: an unknown version, kind or op tag, a length past the end, or bytes left over
 * make it throw, so the leader refuses such an entry before it reaches the log.
 */
public final class EntryCodec {
    public static final byte FORMAT_VERSION = 1;
    private static final int INSTANT_OFFSET = 1;
    private static final int KIND_OFFSET = INSTANT_OFFSET + Long.BYTES;
    /** {@code WRITE_CALLS_AS_SENT}: a {@link WriteCalls} entry answered {@link AnswerForm#AS_SENT}; the same body. */
    private static final byte WRITE_CALL = 1, SWEEP = 2, CHANGE_SETTINGS = 3, SEED_SETTINGS = 4, WRITE_CALLS = 5, WRITE_CALLS_AS_SENT = 6;
    private static final byte GET = 1, GET_MANY = 2, GET_PREFIX = 3, PUT = 4, PUT_IF_ABSENT = 5, DELETE = 6, INCR = 7, CHECK = 8;

    private EntryCodec() {}

    public static byte[] encode(Entry entry) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(entry instanceof WriteCall call ? roomFor(call.ops()) : 256);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(FORMAT_VERSION);
            out.writeLong(entry.instant());
            if (entry instanceof WriteCall call) {
                out.writeByte(WRITE_CALL);
                writeCall(out, call);
            } else if (entry instanceof WriteCalls group) {
                byte[] grouped = stampInstant(group(group.calls().stream().map(EntryCodec::encode).toList()), group.instant());
                return group.answers() == AnswerForm.AS_SENT ? answeredAsSent(grouped) : grouped;
            } else if (entry instanceof Sweep sweep) {
                out.writeByte(SWEEP);
                Binary.writeVarLong(out, sweep.maxRows());
            } else if (entry instanceof ChangeSettings change) {
                out.writeByte(CHANGE_SETTINGS);
                writeSettings(out, change.settings());
            } else if (entry instanceof Entry.SeedSettings seed) {
                out.writeByte(SEED_SETTINGS);
                writeSettings(out, seed.settings());
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Decodes an entry; throws {@link UncheckedIOException} on anything it does not know. */
    public static Entry decode(byte[] data) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            byte version = in.readByte();
            if (version != FORMAT_VERSION) throw new IOException("unknown entry format version " + version);
            long instant = in.readLong();
            byte kind = in.readByte();
            Entry entry = switch (kind) {
                case WRITE_CALL -> readCall(in, instant);
                case WRITE_CALLS, WRITE_CALLS_AS_SENT -> {
                    int n = Binary.readCount(in);
                    List<WriteCall> calls = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) calls.add(readCall(in, instant));
                    yield new WriteCalls(instant, calls, kind == WRITE_CALLS_AS_SENT ? AnswerForm.AS_SENT : AnswerForm.FULL);
                }
                case SWEEP -> new Sweep(instant, Binary.readVarInt(in));
                case CHANGE_SETTINGS -> new ChangeSettings(instant, readSettings(in));
                case SEED_SETTINGS -> new Entry.SeedSettings(instant, readSettings(in));
                default -> throw new IOException("unknown entry kind " + kind);
            };
            if (in.available() > 0) throw new IOException(in.available() + " bytes after the end of the entry");
            return entry;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            // A field that decodes but is not valid for its record (a bad number, a bad JSON text).
            throw new UncheckedIOException(new IOException("malformed entry: " + e.getMessage(), e));
        }
    }

    /**
     * One {@link WriteCalls} entry from write calls encoded one by one, their bytes copied (not
     * encoded again). The calls' instants are dropped: the leader stamps one for all of them.
     */
    public static byte[] group(List<byte[]> encodedCalls) {
        try {
            int header = KIND_OFFSET + 1;
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + encodedCalls.stream().mapToInt(c -> c.length).sum());
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(FORMAT_VERSION);
            out.writeLong(0);
            out.writeByte(WRITE_CALLS);
            Binary.writeVarLong(out, encodedCalls.size());
            for (byte[] call : encodedCalls) {
                if (call.length < header || call[0] != FORMAT_VERSION || call[header - 1] != WRITE_CALL)
                    throw new IllegalArgumentException("not an encoded write call");
                out.write(call, header, call.length - header);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeCall(DataOutput out, WriteCall call) throws IOException {
        Binary.writeString(out, call.tenant());
        Binary.writeNullableString(out, call.idempotencyKey());
        Binary.writeNullableString(out, call.fingerprint());
        writeOps(out, call.ops());
    }

    private static WriteCall readCall(DataInput in, long instant) throws IOException {
        return new WriteCall(instant, Binary.readString(in), Binary.readNullableString(in), Binary.readNullableString(in), readOps(in));
    }

    /**
     * A query the leader sends a member before it writes {@link WriteCalls} entries, which a node of
     * an earlier version cannot apply. Such a node refuses it (its first bytes read as a string length
     * out of range); this version answers {@link #FORMAT_PROBE_ANSWER}.
     */
    public static final byte[] FORMAT_PROBE = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F, WRITE_CALLS};
    /** This version's answer to {@link #FORMAT_PROBE}: the newest entry kind it applies. */
    public static final byte[] FORMAT_PROBE_ANSWER = {FORMAT_VERSION, WRITE_CALLS_AS_SENT};

    public static boolean isFormatProbe(byte[] query) {
        return Arrays.equals(query, FORMAT_PROBE);
    }

    /** Whether a member's answer to {@link #FORMAT_PROBE} says it applies {@link WriteCalls} entries. */
    public static boolean appliesWriteCalls(byte[] answer) {
        return answer.length == 2 && answer[0] == FORMAT_VERSION && answer[1] >= WRITE_CALLS;
    }

    /** Whether a member's answer to {@link #FORMAT_PROBE} says it applies {@link WriteCalls} entries answered {@link AnswerForm#AS_SENT}. */
    public static boolean answersAsSent(byte[] answer) {
        return appliesWriteCalls(answer) && answer[1] >= WRITE_CALLS_AS_SENT;
    }

    /**
     * The start of a query that carries a follower's write calls for the leader's own next group
     * ({@link #forwardedCalls}). Like {@link #FORMAT_PROBE} it reads as a string length out of range,
     * so a node of an earlier version refuses it and the follower sends the calls as an entry instead.
     */
    private static final byte[] FORWARDED_CALLS_PREFIX = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F, 0x46};

    /** A query carrying write calls encoded one by one ({@link #encode}) for the leader to write in its next group. */
    public static byte[] forwardedCalls(List<byte[]> encodedCalls) {
        byte[] group = group(encodedCalls);
        byte[] query = Arrays.copyOf(FORWARDED_CALLS_PREFIX, FORWARDED_CALLS_PREFIX.length + group.length);
        System.arraycopy(group, 0, query, FORWARDED_CALLS_PREFIX.length, group.length);
        return query;
    }

    /** Whether a query is a {@link #forwardedCalls} one, by its prefix alone. */
    public static boolean isForwardedCalls(byte[] query) {
        return query.length > FORWARDED_CALLS_PREFIX.length
                && Arrays.equals(query, 0, FORWARDED_CALLS_PREFIX.length, FORWARDED_CALLS_PREFIX, 0, FORWARDED_CALLS_PREFIX.length);
    }

    /** The calls of a {@link #forwardedCalls} query; throws {@link UncheckedIOException} on anything else. */
    public static List<WriteCall> decodeForwardedCalls(byte[] query) {
        if (!isForwardedCalls(query)) throw new UncheckedIOException(new IOException("not a query of forwarded write calls"));
        Entry entry = decode(Arrays.copyOfRange(query, FORWARDED_CALLS_PREFIX.length, query.length));
        if (!(entry instanceof WriteCalls group)) throw new UncheckedIOException(new IOException("forwarded calls must be a group of write calls"));
        return group.calls();
    }

    /**
     * A query a follower sends the leader it follows for a linearizable read: "pass your read barrier
     * — your ReadIndex and the check that you still lead — after this query arrived, then tell me your
     * applied index". Like {@link #FORMAT_PROBE} it reads as a string length out of range, so a
     * leader of an earlier version refuses it.
     */
    public static final byte[] READ_INDEX_QUERY = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F, 0x52};
    private static final byte CONFIRMED = 1, NOT_CONFIRMED = 0;

    public static boolean isReadIndexQuery(byte[] query) {
        return Arrays.equals(query, READ_INDEX_QUERY);
    }

    /** The leader's answer to {@link #READ_INDEX_QUERY}: its applied index once its barrier passed. */
    public static byte[] readIndexAnswer(long appliedIndex) {
        return ByteBuffer.allocate(1 + Long.BYTES).put(CONFIRMED).putLong(appliedIndex).array();
    }

    /** The answer to {@link #READ_INDEX_QUERY} of a node that is not the leader or whose barrier failed. */
    public static byte[] readIndexRefused() {
        return new byte[] {NOT_CONFIRMED};
    }

    /** The applied index a {@link #readIndexAnswer} carries, or empty for {@link #readIndexRefused}; throws {@link UncheckedIOException} on anything else. */
    public static OptionalLong decodeReadIndexAnswer(byte[] answer) {
        if (answer.length == 1 && answer[0] == NOT_CONFIRMED) return OptionalLong.empty();
        if (answer.length == 1 + Long.BYTES && answer[0] == CONFIRMED) return OptionalLong.of(ByteBuffer.wrap(answer, 1, Long.BYTES).getLong());
        throw new UncheckedIOException(new IOException("not an answer to a read index query"));
    }

    /** A read-only call as sent to a node's state machine: the tenant and the ops. */
    public record ReadQuery(String tenant, List<Op> ops) {}

    public static byte[] encodeQuery(ReadQuery query) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(roomFor(query.ops()));
        writeQuery(query, bytes);
        return bytes.toByteArray();
    }

    /** Writes {@link #encodeQuery}'s bytes to {@code to}: a digest of them needs no copy of the call's values. */
    public static void writeQuery(ReadQuery query, OutputStream to) {
        try {
            DataOutputStream out = new DataOutputStream(to);
            Binary.writeString(out, query.tenant());
            writeOps(out, query.ops());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ReadQuery decodeQuery(byte[] data) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            ReadQuery query = new ReadQuery(Binary.readString(in), readOps(in));
            if (in.available() > 0) throw new IOException(in.available() + " bytes after the end of the query");
            return query;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            throw new UncheckedIOException(new IOException("malformed query: " + e.getMessage(), e));
        }
    }

    /** A copy of an encoded entry with its instant replaced. */
    /** Whether {@code encoded} is a {@link WriteCalls} entry (either form), by its kind tag alone. */
    public static boolean isGroup(byte[] encoded) {
        return encoded.length > KIND_OFFSET && (encoded[KIND_OFFSET] == WRITE_CALLS || encoded[KIND_OFFSET] == WRITE_CALLS_AS_SENT);
    }

    /**
     * An encoded {@link WriteCalls} entry (as {@link #group} makes it) marked to be answered {@link AnswerForm#AS_SENT}: the
     * leader's choice, made once every member reads that form. In place, like {@link #stampInstant}.
     */
    public static byte[] answeredAsSent(byte[] encodedGroup) {
        if (!isGroup(encodedGroup) || encodedGroup[0] != FORMAT_VERSION) throw new IllegalArgumentException("not an encoded group of write calls");
        encodedGroup[KIND_OFFSET] = WRITE_CALLS_AS_SENT;
        return encodedGroup;
    }

    /** Sets an encoded entry's instant, in place: the caller's own array (no copy of the values it carries). */
    public static byte[] stampInstant(byte[] encoded, long instant) {
        ByteBuffer.wrap(encoded).putLong(INSTANT_OFFSET, instant);
        return encoded;
    }

    static void writeSettings(DataOutput out, Settings s) throws IOException {
        Binary.writeVarLong(out, s.maxOpsPerCall());
        Binary.writeVarLong(out, s.maxKeysPerCall());
        Binary.writeVarLong(out, s.maxValueBytes());
        Binary.writeVarLong(out, s.maxBodyBytes());
        Binary.writeVarLong(out, s.writeRate());
        Binary.writeVarLong(out, s.readRate());
    }

    static Settings readSettings(DataInput in) throws IOException {
        return new Settings(Binary.readVarInt(in), Binary.readVarInt(in), Binary.readVarInt(in), Binary.readVarLong(in),
                Binary.readVarInt(in), Binary.readVarInt(in));
    }

    /**
     * What to set aside for encoding a call of these ops: their values exactly, everything else
     * generously, so a call carrying large values is encoded without its buffer growing (and being
     * copied) on the way.
     */
    private static int roomFor(List<Op> ops) {
        int room = 256;
        for (Op op : ops) {
            room += 64;
            if (op instanceof Op.Write write) room += write.key().length();
            if (op instanceof Op.Put put) room += put.value().utf8Length();
            else if (op instanceof Op.PutIfAbsent put) room += put.value().utf8Length();
        }
        return room;
    }

    private static void writeOps(DataOutput out, List<Op> ops) throws IOException {
        Binary.writeVarLong(out, ops.size());
        for (Op op : ops) {
            if (op instanceof Op.Get o) {
                out.writeByte(GET);
                Binary.writeString(out, o.key());
            } else if (op instanceof Op.GetMany o) {
                out.writeByte(GET_MANY);
                Binary.writeVarLong(out, o.keys().size());
                for (String key : o.keys()) Binary.writeString(out, key);
            } else if (op instanceof Op.GetPrefix o) {
                out.writeByte(GET_PREFIX);
                Binary.writeString(out, o.prefix());
                Binary.writeNullableString(out, o.after());
                Binary.writeVarLong(out, o.limit());
                out.writeBoolean(o.keysOnly());
            } else if (op instanceof Op.Put o) {
                out.writeByte(PUT);
                Binary.writeString(out, o.key());
                Binary.writeJson(out, o.value());
                writeExpiry(out, o.expiry());
                writeExpect(out, o.expect());
            } else if (op instanceof Op.PutIfAbsent o) {
                out.writeByte(PUT_IF_ABSENT);
                Binary.writeString(out, o.key());
                Binary.writeJson(out, o.value());
                writeExpiry(out, o.expiry());
            } else if (op instanceof Op.Delete o) {
                out.writeByte(DELETE);
                Binary.writeString(out, o.key());
                writeExpect(out, o.expect());
            } else if (op instanceof Op.Incr o) {
                out.writeByte(INCR);
                Binary.writeString(out, o.key());
                Binary.writeDecimal(out, o.delta());
                Binary.writeDecimal(out, o.min());
                Binary.writeDecimal(out, o.max());
                writeExpiry(out, o.expiry());
            } else if (op instanceof Op.Check o) {
                out.writeByte(CHECK);
                Binary.writeString(out, o.key());
                Binary.writeVarLong(out, o.expect());
            }
            Binary.writeString(out, op.ns());
            out.writeBoolean(op.required());
        }
    }

    private static List<Op> readOps(DataInput in) throws IOException {
        int count = Binary.readCount(in);
        List<Op> ops = new ArrayList<>(count);
        for (int i = 0; i < count; i++) ops.add(readOp(in));
        return ops;
    }

    private static Op readOp(DataInput in) throws IOException {
        byte tag = in.readByte();
        // The op's own fields come first; ns and required close every op.
        return switch (tag) {
            case GET -> {
                String key = Binary.readString(in);
                yield new Op.Get(Binary.readString(in), key, in.readBoolean());
            }
            case GET_MANY -> {
                int n = Binary.readCount(in);
                List<String> keys = new ArrayList<>(n);
                for (int k = 0; k < n; k++) keys.add(Binary.readString(in));
                yield new Op.GetMany(Binary.readString(in), keys, in.readBoolean());
            }
            case GET_PREFIX -> {
                String prefix = Binary.readString(in);
                String after = Binary.readNullableString(in);
                int limit = Binary.readVarInt(in);
                boolean keysOnly = in.readBoolean();
                yield new Op.GetPrefix(Binary.readString(in), prefix, after, limit, keysOnly, in.readBoolean());
            }
            case PUT -> {
                String key = Binary.readString(in);
                JsonValue value = Binary.readJson(in);
                Expiry expiry = readExpiry(in);
                Long expect = readExpect(in);
                yield new Op.Put(Binary.readString(in), key, value, expiry, expect, in.readBoolean());
            }
            case PUT_IF_ABSENT -> {
                String key = Binary.readString(in);
                JsonValue value = Binary.readJson(in);
                Expiry expiry = readExpiry(in);
                yield new Op.PutIfAbsent(Binary.readString(in), key, value, expiry, in.readBoolean());
            }
            case DELETE -> {
                String key = Binary.readString(in);
                Long expect = readExpect(in);
                yield new Op.Delete(Binary.readString(in), key, expect, in.readBoolean());
            }
            case INCR -> {
                String key = Binary.readString(in);
                var delta = Binary.readDecimal(in);
                var min = Binary.readDecimal(in);
                var max = Binary.readDecimal(in);
                Expiry expiry = readExpiry(in);
                yield new Op.Incr(Binary.readString(in), key, delta, min, max, expiry, in.readBoolean());
            }
            case CHECK -> {
                String key = Binary.readString(in);
                long expect = Binary.readVarLong(in);
                yield new Op.Check(Binary.readString(in), key, expect, in.readBoolean());
            }
            default -> throw new IOException("unknown op tag " + tag);
        };
    }

    /** 0 = forever; otherwise the TTL in seconds (always > 0). */
    private static void writeExpiry(DataOutput out, Expiry expiry) throws IOException {
        Binary.writeVarLong(out, expiry instanceof Expiry.Ttl ttl ? ttl.seconds() : 0);
    }

    private static Expiry readExpiry(DataInput in) throws IOException {
        long seconds = Binary.readVarLong(in);
        return seconds == 0 ? Expiry.FOREVER : new Expiry.Ttl(seconds);
    }

    /** 0 = no expect; otherwise expect + 1. */
    private static void writeExpect(DataOutput out, Long expect) throws IOException {
        Binary.writeVarLong(out, expect == null ? 0 : expect + 1);
    }

    private static Long readExpect(DataInput in) throws IOException {
        long v = Binary.readVarLong(in);
        return v == 0 ? null : v - 1;
    }
}
