package io.queenkv.node.kv;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.queenkv.node.kv.Outcome.Completed;
import io.queenkv.node.kv.Outcome.IdempotencyKeyReused;
import io.queenkv.node.kv.Outcome.PreconditionFailed;
import io.queenkv.node.kv.Result.GetManyResult;
import io.queenkv.node.kv.Result.GetPrefixResult;
import io.queenkv.node.kv.Result.GetResult;
import io.queenkv.node.kv.Result.ReadRow;
import io.queenkv.node.kv.Result.WriteResult;

/**
 * Outcomes as binary: the reply of a log entry, and the answers kept for Idempotency-Key retries.
 *
 * <p>Two forms of a completed call. In full, every write result carries its op's name, key and value. <em>As
 * sent</em> ({@link AnswerForm#AS_SENT}), a write result leaves out what the call itself holds: the op's name
 * and key always, and the value when it is the op's own (an applied put); whoever decodes it has the call (the
 * node that sent it, or a retry with the same fingerprint) and takes them from there. A put's answer echoes its
 * value, so in full every answer, every recorded answer and every reply Ratis keeps for client retries copies
 * every value written. Each form is tagged; decoding without the call refuses the as-sent form.
 */
public final class OutcomeCodec {
    private static final byte COMPLETED = 1, PRECONDITION_FAILED = 2, KEY_REUSED = 3, COMPLETED_AS_SENT = 4;
    private static final byte GET = 1, GET_MANY = 2, GET_PREFIX = 3, WRITE = 4, WRITE_AS_SENT = 5;
    /** Flags of a {@link #WRITE_AS_SENT} result: applied; the value is the op's own (left out); no value field at all. */
    private static final int APPLIED = 1, VALUE_AS_SENT = 2, NO_VALUE = 4;
    private static final WriteReason[] REASONS = WriteReason.values();

    private OutcomeCodec() {}

    public static byte[] encode(Outcome outcome) {
        return encode(outcome, null);
    }

    /** In the as-sent form relative to {@code ops}, the call's; in full when {@code ops} is null. */
    public static byte[] encode(Outcome outcome, List<Op> ops) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
            write(new DataOutputStream(bytes), outcome, ops);
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether {@code encoded} is an outcome in the as-sent form (it decodes only with its call). */
    public static boolean isAsSent(byte[] encoded) {
        return encoded.length > 0 && encoded[0] == COMPLETED_AS_SENT;
    }

    /** An outcome in full; throws on the as-sent form. */
    public static Outcome decode(byte[] data) {
        return decode(data, null);
    }

    /** An outcome in either form; {@code ops}, the call's, fill in what the as-sent form left out. */
    public static Outcome decode(byte[] data, List<Op> ops) {
        try {
            return read(new DataInputStream(new ByteArrayInputStream(data)), ops);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The reply of a {@link Entry.WriteCalls} entry: each call's outcome in the entry's order, or
     * empty for a call that could not be applied (it changed nothing); as sent relative to each call's
     * ops when {@code form} says so.
     */
    public static byte[] encodeEach(List<Optional<Outcome>> outcomes, List<Entry.WriteCall> calls, AnswerForm form) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * outcomes.size());
            DataOutputStream out = new DataOutputStream(bytes);
            Binary.writeVarLong(out, outcomes.size());
            for (int i = 0; i < outcomes.size(); i++) {
                Optional<Outcome> outcome = outcomes.get(i);
                out.writeBoolean(outcome.isPresent());
                if (outcome.isPresent()) write(out, outcome.get(), form == AnswerForm.AS_SENT ? calls.get(i).ops() : null);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The outcomes of a group's reply, in either form; {@code calls}, the group's, fill in what the as-sent form left out. */
    public static List<Optional<Outcome>> decodeEach(byte[] data, List<Entry.WriteCall> calls) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            int n = Binary.readCount(in);
            if (n != calls.size()) throw new IOException(n + " outcomes for " + calls.size() + " calls");
            List<Optional<Outcome>> outcomes = new ArrayList<>(n);
            for (int i = 0; i < n; i++) outcomes.add(in.readBoolean() ? Optional.of(read(in, calls.get(i).ops())) : Optional.empty());
            if (in.available() > 0) throw new IOException(in.available() + " bytes after the last outcome");
            return outcomes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code ops} null: in full. */
    static void write(DataOutput out, Outcome outcome, List<Op> ops) throws IOException {
        if (outcome instanceof Completed c) {
            out.writeByte(ops == null ? COMPLETED : COMPLETED_AS_SENT);
            Binary.writeVarLong(out, c.results().size());
            for (Result r : c.results()) {
                if (ops != null && r instanceof WriteResult w) writeAsSent(out, w, ops.get(w.index()));
                else writeResult(out, r);
            }
        } else if (outcome instanceof PreconditionFailed p) {
            out.writeByte(PRECONDITION_FAILED);
            Binary.writeVarLong(out, p.failedIndex());
            out.writeByte(p.kvReason().ordinal());
            Binary.writeVarLong(out, p.version());
            Binary.writeJson(out, p.value());
        } else {
            out.writeByte(KEY_REUSED);
        }
    }

    /** {@code ops} null: only the full form reads. */
    static Outcome read(DataInput in, List<Op> ops) throws IOException {
        byte kind = in.readByte();
        switch (kind) {
            case COMPLETED, COMPLETED_AS_SENT -> {
                if (kind == COMPLETED_AS_SENT && ops == null) throw new IOException("an answer as sent decodes only with its call");
                int n = Binary.readVarInt(in);
                List<Result> results = new ArrayList<>(n);
                for (int i = 0; i < n; i++) results.add(readResult(in, kind == COMPLETED_AS_SENT ? ops : null));
                return new Completed(results);
            }
            case PRECONDITION_FAILED -> {
                return new PreconditionFailed(Binary.readVarInt(in), REASONS[in.readByte()], Binary.readVarLong(in),
                        Binary.readJson(in));
            }
            case KEY_REUSED -> {
                return new IdempotencyKeyReused();
            }
            default -> throw new IOException("unknown outcome kind " + kind);
        }
    }

    private static void writeResult(DataOutput out, Result r) throws IOException {
        if (r instanceof GetResult g) {
            out.writeByte(GET);
            Binary.writeVarLong(out, g.index());
            Binary.writeString(out, g.key());
            out.writeBoolean(g.row() != null);
            if (g.row() != null) writeRow(out, g.row());
        } else if (r instanceof GetManyResult m) {
            out.writeByte(GET_MANY);
            Binary.writeVarLong(out, m.index());
            writeRows(out, m.rows());
            Binary.writeVarLong(out, m.missing().size());
            for (String key : m.missing()) Binary.writeString(out, key);
            out.writeBoolean(m.truncated());
        } else if (r instanceof GetPrefixResult p) {
            out.writeByte(GET_PREFIX);
            Binary.writeVarLong(out, p.index());
            writeRows(out, p.rows());
            out.writeBoolean(p.truncated());
            Binary.writeNullableString(out, p.nextAfter());
        } else if (r instanceof WriteResult w) {
            out.writeByte(WRITE);
            Binary.writeVarLong(out, w.index());
            Binary.writeString(out, w.op());
            out.writeBoolean(w.applied());
            out.writeByte(w.reason() == null ? -1 : w.reason().ordinal());
            Binary.writeString(out, w.key());
            Binary.writeJson(out, w.value());
            Binary.writeVarLong(out, w.version());
        }
    }

    /**
     * A write result without what its op holds: the name and key always, the value when it is the op's own (the
     * very object, as the engine stores an applied put's value; on decoding, the op's equal value stands in).
     */
    private static void writeAsSent(DataOutput out, WriteResult w, Op op) throws IOException {
        if (!(op instanceof Op.Write write) || !write.key().equals(w.key()) || !write.name().equals(w.op()))
            throw new IllegalArgumentException("result " + w.index() + " is not the answer of op " + op.name());
        boolean asSent = w.value() != null && w.value() == sentValue(op);
        out.writeByte(WRITE_AS_SENT);
        Binary.writeVarLong(out, w.index());
        out.writeByte((w.applied() ? APPLIED : 0) | (asSent ? VALUE_AS_SENT : 0) | (w.value() == null ? NO_VALUE : 0));
        out.writeByte(w.reason() == null ? -1 : w.reason().ordinal());
        if (!asSent && w.value() != null) Binary.writeJson(out, w.value());
        Binary.writeVarLong(out, w.version());
    }

    /** The value an op writes as sent (a put's), or null. */
    private static JsonValue sentValue(Op op) {
        if (op instanceof Op.Put put) return put.value();
        if (op instanceof Op.PutIfAbsent put) return put.value();
        return null;
    }

    private static WriteResult readAsSent(DataInput in, int index, List<Op> ops) throws IOException {
        if (index < 0 || index >= ops.size() || !(ops.get(index) instanceof Op.Write op))
            throw new IOException("an answer as sent names op " + index + ", which is no write of its call");
        int flags = in.readUnsignedByte();
        if ((flags & ~(APPLIED | VALUE_AS_SENT | NO_VALUE)) != 0) throw new IOException("unknown write result flags " + flags);
        byte reason = in.readByte();
        JsonValue value;
        if ((flags & NO_VALUE) != 0) value = null;
        else if ((flags & VALUE_AS_SENT) != 0) value = sentValue(op);
        else value = Binary.readJson(in);
        if ((flags & VALUE_AS_SENT) != 0 && value == null) throw new IOException("op " + index + " sent no value");
        return new WriteResult(index, op.name(), (flags & APPLIED) != 0, reason < 0 ? null : REASONS[reason], op.key(), value,
                Binary.readVarLong(in));
    }

    /** {@code ops} null: a result in full; else either form. */
    private static Result readResult(DataInput in, List<Op> ops) throws IOException {
        byte kind = in.readByte();
        int index = Binary.readVarInt(in);
        if (kind == WRITE_AS_SENT) {
            if (ops == null) throw new IOException("a write result as sent in an answer in full");
            return readAsSent(in, index, ops);
        }
        switch (kind) {
            case GET -> {
                String key = Binary.readString(in);
                return new GetResult(index, key, in.readBoolean() ? readRow(in) : null);
            }
            case GET_MANY -> {
                List<ReadRow> rows = readRows(in);
                int n = Binary.readVarInt(in);
                List<String> missing = new ArrayList<>(n);
                for (int i = 0; i < n; i++) missing.add(Binary.readString(in));
                return new GetManyResult(index, rows, missing, in.readBoolean());
            }
            case GET_PREFIX -> {
                return new GetPrefixResult(index, readRows(in), in.readBoolean(), Binary.readNullableString(in));
            }
            case WRITE -> {
                String op = Binary.readString(in);
                boolean applied = in.readBoolean();
                byte reason = in.readByte();
                return new WriteResult(index, op, applied, reason < 0 ? null : REASONS[reason], Binary.readString(in),
                        Binary.readJson(in), Binary.readVarLong(in));
            }
            default -> throw new IOException("unknown result kind " + kind);
        }
    }

    private static void writeRows(DataOutput out, List<ReadRow> rows) throws IOException {
        Binary.writeVarLong(out, rows.size());
        for (ReadRow row : rows) writeRow(out, row);
    }

    private static List<ReadRow> readRows(DataInput in) throws IOException {
        int n = Binary.readVarInt(in);
        List<ReadRow> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) rows.add(readRow(in));
        return rows;
    }

    private static void writeRow(DataOutput out, ReadRow row) throws IOException {
        Binary.writeString(out, row.key());
        Binary.writeJson(out, row.value());
        Binary.writeVarLong(out, row.version());
        out.writeLong(row.expiresAt());
        out.writeLong(row.updatedAt());
    }

    private static ReadRow readRow(DataInput in) throws IOException {
        return new ReadRow(Binary.readString(in), Binary.readJson(in), Binary.readVarLong(in), in.readLong(), in.readLong());
    }
}
