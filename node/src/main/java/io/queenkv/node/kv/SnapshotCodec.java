package io.queenkv.node.kv;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.NavigableMap;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

import io.queenkv.node.kv.KvEngine.IdempotencyId;
import io.queenkv.node.kv.KvEngine.IdempotencyRecord;
import io.queenkv.node.kv.KvEngine.Scope;

/**
 * The engine's whole state as a stream: a header, the rows, the idempotency records, and a CRC32C
 * of everything before it, so a damaged snapshot is refused instead of loaded. A backup is this
 * format too: the CLI ({@code cli/}, {@code BackupFile}) reads its header and checks its CRC without
 * this class, so a change of the header goes with a new {@code FORMAT} and a change there.
 */
public final class SnapshotCodec {
    private static final int MAGIC = 0x514B5653; // "QKVS"
    /**
     * 1: each idempotency record's answer as {@link OutcomeCodec} writes it in full. 2: as {@link OutcomeCodec} writes it
     * in either form, preceded by its length (an answer recorded {@link AnswerForm#AS_SENT} cannot be parsed without its
     * call, so it is copied, not parsed). A state with no such answer is written as 1, which every version reads: those
     * answers exist only once every member reads them (the leader's choice, {@link Entry.WriteCalls#answers}).
     */
    private static final int FORMAT_FULL_ANSWERS = 1, FORMAT_SIZED_ANSWERS = 2;

    private SnapshotCodec() {}

    public static void write(KvEngine engine, OutputStream target) throws IOException {
        write(engine.freeze(), target);
    }

    /** Writes a state frozen at one log index ({@link KvEngine#freeze}); the engine may change meanwhile. */
    public static void write(KvEngine.Frozen state, OutputStream target) throws IOException {
        CheckedOutputStream checked = new CheckedOutputStream(target, new CRC32C());
        // Buffered before the checksum, so the CRC runs over 64 KiB blocks, not byte by byte.
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(checked, 1 << 16));
        boolean sized = state.idempotency().stream().anyMatch(e -> OutcomeCodec.isAsSent(e.getValue().encodedOutcome()));
        out.writeInt(MAGIC);
        out.writeInt(sized ? FORMAT_SIZED_ANSWERS : FORMAT_FULL_ANSWERS);
        out.writeLong(state.nextVersion());
        out.writeLong(state.lastInstant());
        out.writeLong(state.settingsIndex());
        EntryCodec.writeSettings(out, state.settings());
        out.writeLong(state.keyCount());
        for (KvEngine.FrozenSpace space : state.spaces()) {
            for (int i = 0; i < space.keys().length; i++) {
                Binary.writeString(out, space.scope().tenant());
                Binary.writeString(out, space.scope().ns());
                Binary.writeString(out, space.keys()[i]);
                Row row = space.rows()[i];
                Binary.writeJson(out, row.value());
                Binary.writeVarLong(out, row.version());
                out.writeLong(row.expiresAt());
                out.writeLong(row.updatedAt());
            }
        }
        out.writeLong(state.idempotency().size());
        for (Map.Entry<IdempotencyId, IdempotencyRecord> e : state.idempotency()) {
            Binary.writeString(out, e.getKey().tenant());
            Binary.writeString(out, e.getKey().key());
            Binary.writeString(out, Fingerprint.expand(e.getValue().fingerprint()));
            out.writeLong(e.getValue().expiresAt());
            if (sized) Binary.writeVarLong(out, e.getValue().encodedOutcome().length);
            out.write(e.getValue().encodedOutcome()); // the bytes OutcomeCodec gives
        }
        out.flush();
        new DataOutputStream(target).writeLong(checked.getChecksum().getValue());
        target.flush();
    }

    /**
     * Reads a snapshot. While no settings were ever committed (settings index 0) the node's own
     * {@code seed} stays in force, as on a fresh store.
     */
    public static KvEngine read(InputStream source, Settings seed) throws IOException {
        try {
            return readChecked(source, seed);
        } catch (RuntimeException e) {
            // Damaged bytes are parsed before the checksum is reached; they must still read as a refusal.
            throw new IOException("damaged snapshot: " + e, e);
        }
    }

    private static KvEngine readChecked(InputStream source, Settings seed) throws IOException {
        ChecksummedInput checked = new ChecksummedInput(source);
        DataInputStream in = new DataInputStream(checked);
        if (in.readInt() != MAGIC) throw new IOException("not a Queen KV snapshot");
        int format = in.readInt();
        if (format != FORMAT_FULL_ANSWERS && format != FORMAT_SIZED_ANSWERS) throw new IOException("unsupported snapshot format " + format);
        long nextVersion = in.readLong();
        long lastInstant = in.readLong();
        long settingsIndex = in.readLong();
        Settings committed = EntryCodec.readSettings(in);
        KvEngine engine = new KvEngine(settingsIndex == 0 ? seed : committed);
        engine.nextVersion = nextVersion;
        engine.lastInstant = lastInstant;
        engine.settingsIndex = settingsIndex;
        for (long n = in.readLong(); n > 0; n--) {
            String tenant = Binary.readString(in), ns = Binary.readString(in), key = Binary.readString(in);
            engine.restoreRow(tenant, ns, key, new Row(Binary.readJson(in), Binary.readVarLong(in), in.readLong(), in.readLong()));
        }
        for (long n = in.readLong(); n > 0; n--) {
            IdempotencyId id = engine.idempotencyId(Binary.readString(in), Binary.readString(in));
            String fingerprint = Binary.readString(in);
            long expiresAt = in.readLong();
            byte[] answer;
            if (format == FORMAT_SIZED_ANSWERS) {
                answer = new byte[Binary.readCount(in)];
                in.readFully(answer);
            } else {
                answer = OutcomeCodec.encode(OutcomeCodec.read(in, null));
            }
            engine.recordAnswer(id, fingerprint, answer, expiresAt);
        }
        long expected = checked.checksum();
        long stored = in.readLong();
        if (stored != expected) throw new IOException("snapshot checksum mismatch");
        return engine;
    }

    /**
     * Reads {@code source} through a buffer of its own and keeps the CRC32C of the bytes handed out
     * so far, computed a block at a time: it may read ahead past the body into the checksum that
     * follows it without counting those bytes.
     */
    private static final class ChecksummedInput extends InputStream {
        private final InputStream source;
        private final CRC32C crc = new CRC32C();
        private final byte[] buffer = new byte[1 << 16];
        private int pos, limit, counted; // counted: buffer[0, counted) is in the CRC

        ChecksummedInput(InputStream source) {
            this.source = source;
        }

        /** The CRC32C of every byte read so far. */
        long checksum() {
            count();
            return crc.getValue();
        }

        private void count() {
            crc.update(buffer, counted, pos - counted);
            counted = pos;
        }

        private boolean fill() throws IOException {
            count();
            int n = source.read(buffer, 0, buffer.length);
            if (n <= 0) return false;
            pos = counted = 0;
            limit = n;
            return true;
        }

        @Override
        public int read() throws IOException {
            if (pos == limit && !fill()) return -1;
            return buffer[pos++] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) return 0;
            if (pos == limit && !fill()) return -1;
            int n = Math.min(len, limit - pos);
            System.arraycopy(buffer, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public int available() throws IOException {
            return (limit - pos) + source.available();
        }
    }
}
