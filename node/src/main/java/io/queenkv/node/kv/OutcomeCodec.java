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

/** Outcomes as binary: the reply of a log entry, and the answers kept for Idempotency-Key retries. */
public final class OutcomeCodec {
    private static final byte COMPLETED = 1, PRECONDITION_FAILED = 2, KEY_REUSED = 3;
    private static final byte GET = 1, GET_MANY = 2, GET_PREFIX = 3, WRITE = 4;
    private static final WriteReason[] REASONS = WriteReason.values();

    private OutcomeCodec() {}

    public static byte[] encode(Outcome outcome) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
            write(new DataOutputStream(bytes), outcome);
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Outcome decode(byte[] data) {
        try {
            return read(new DataInputStream(new ByteArrayInputStream(data)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The reply of a {@link Entry.WriteCalls} entry: each call's outcome in the entry's order, or
     * empty for a call that could not be applied (it changed nothing).
     */
    public static byte[] encodeEach(List<Optional<Outcome>> outcomes) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * outcomes.size());
            DataOutputStream out = new DataOutputStream(bytes);
            Binary.writeVarLong(out, outcomes.size());
            for (Optional<Outcome> outcome : outcomes) {
                out.writeBoolean(outcome.isPresent());
                if (outcome.isPresent()) write(out, outcome.get());
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<Optional<Outcome>> decodeEach(byte[] data) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            int n = Binary.readCount(in);
            List<Optional<Outcome>> outcomes = new ArrayList<>(n);
            for (int i = 0; i < n; i++) outcomes.add(in.readBoolean() ? Optional.of(read(in)) : Optional.empty());
            if (in.available() > 0) throw new IOException(in.available() + " bytes after the last outcome");
            return outcomes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(DataOutput out, Outcome outcome) throws IOException {
        if (outcome instanceof Completed c) {
            out.writeByte(COMPLETED);
            Binary.writeVarLong(out, c.results().size());
            for (Result r : c.results()) writeResult(out, r);
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

    static Outcome read(DataInput in) throws IOException {
        byte kind = in.readByte();
        switch (kind) {
            case COMPLETED -> {
                int n = Binary.readVarInt(in);
                List<Result> results = new ArrayList<>(n);
                for (int i = 0; i < n; i++) results.add(readResult(in));
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

    private static Result readResult(DataInput in) throws IOException {
        byte kind = in.readByte();
        int index = Binary.readVarInt(in);
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
