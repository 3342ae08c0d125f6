package io.queenkv.node.kv;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.NavigableMap;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
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
    private static final int FORMAT = 1;

    private SnapshotCodec() {}

    public static void write(KvEngine engine, OutputStream target) throws IOException {
        write(engine.freeze(), target);
    }

    /** Writes a state frozen at one log index ({@link KvEngine#freeze}); the engine may change meanwhile. */
    public static void write(KvEngine.Frozen state, OutputStream target) throws IOException {
        CheckedOutputStream checked = new CheckedOutputStream(target, new CRC32C());
        DataOutputStream out = new DataOutputStream(checked);
        out.writeInt(MAGIC);
        out.writeInt(FORMAT);
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
            Binary.writeString(out, e.getValue().fingerprint());
            out.writeLong(e.getValue().expiresAt());
            OutcomeCodec.write(out, e.getValue().outcome());
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
        CheckedInputStream checked = new CheckedInputStream(source, new CRC32C());
        DataInputStream in = new DataInputStream(checked);
        if (in.readInt() != MAGIC) throw new IOException("not a Queen KV snapshot");
        int format = in.readInt();
        if (format != FORMAT) throw new IOException("unsupported snapshot format " + format);
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
            IdempotencyId id = new IdempotencyId(Binary.readString(in), Binary.readString(in));
            String fingerprint = Binary.readString(in);
            long expiresAt = in.readLong();
            engine.idempotency.put(id, new IdempotencyRecord(fingerprint, OutcomeCodec.read(in), expiresAt));
        }
        long expected = checked.getChecksum().getValue();
        long stored = new DataInputStream(source).readLong();
        if (stored != expected) throw new IOException("snapshot checksum mismatch");
        return engine;
    }
}
