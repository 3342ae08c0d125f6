package io.queenkv.cli;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.zip.CRC32C;

/**
 * What a backup file ({@code GET /api/v1/admin/backup}) says about itself, once checked: the node's
 * snapshot format (node {@code kv/SnapshotCodec}) — magic {@code QKVS}, format 1 or 2 (they differ past the
 * header, in how idempotency records are laid out), the version
 * counter, the last entry's instant (epoch µs), the settings index, six settings as varints, the
 * key count, the rows and idempotency records — and a CRC32C of every byte before its last eight.
 * Only the header is parsed; the checksum covers the rest. The node is not a dependency of the CLI
 * (it would bring Ratis and Jetty), so the header layout is read here; the end-to-end tests check
 * it against backups of real nodes.
 */
record BackupFile(Path file, long bytes, int format, long keys, long nextVersion, Instant lastWriteAt,
                  long settingsIndex, long crc32c) {
    static final int MAGIC = 0x514B5653; // "QKVS"
    /** The formats this CLI reads: 1, and 2 (idempotency records each preceded by their length). */
    static final int FIRST_FORMAT = 1, NEWEST_FORMAT = 2;
    private static final int SETTINGS = 6;

    /** Reads and checks {@code file}; a file that is not a sound backup fails with {@link Exit#FILE}. */
    static BackupFile verify(Path file) {
        try {
            long size = Files.size(file);
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
                if (size < 4 || in.readInt() != MAGIC) throw bad(file, "not a Queen KV backup (it does not start with QKVS)");
                int format = in.readInt();
                if (format < FIRST_FORMAT || format > NEWEST_FORMAT)
                    throw bad(file, "backup format " + format + "; this queen-kv reads formats " + FIRST_FORMAT + " to " + NEWEST_FORMAT);
                long nextVersion = in.readLong();
                long lastInstantMicros = in.readLong();
                long settingsIndex = in.readLong();
                for (int i = 0; i < SETTINGS; i++) readVarLong(in, file);
                long keys = in.readLong();
                if (keys < 0) throw bad(file, "damaged: a negative key count");
                long crc = checksum(file, size);
                return new BackupFile(file, size, format, keys, nextVersion,
                        Instant.EPOCH.plus(lastInstantMicros, ChronoUnit.MICROS), settingsIndex, crc);
            }
        } catch (EOFException e) {
            throw bad(file, "damaged: it ends inside its header");
        } catch (NoSuchFileException e) {
            throw CliFailure.file(file + ": no such file", e);
        } catch (IOException e) {
            throw CliFailure.file(file + ": cannot be read: " + e.getMessage(), e);
        }
    }

    /** Checks the trailer against the CRC32C of every byte before it; answers the checksum. */
    private static long checksum(Path file, long size) throws IOException {
        if (size < 8) throw bad(file, "damaged: no checksum trailer");
        CRC32C crc = new CRC32C();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
            long left = size - 8;
            while (left > 0) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), left));
                int n = channel.read(buffer);
                if (n < 0) throw new EOFException();
                crc.update(buffer.flip());
                left -= n;
            }
            ByteBuffer trailer = ByteBuffer.allocate(8);
            while (trailer.hasRemaining()) if (channel.read(trailer) < 0) throw new EOFException();
            long stored = trailer.getLong(0);
            if (stored != crc.getValue())
                throw bad(file, String.format("damaged: its CRC32C is %08x, the trailer says %08x", crc.getValue(), stored));
            return stored;
        }
    }

    private static long readVarLong(DataInputStream in, Path file) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = in.readByte();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) return v;
        }
        throw bad(file, "damaged: a malformed number in its header");
    }

    private static CliFailure bad(Path file, String problem) {
        return new CliFailure(Exit.FILE, file + ": " + problem);
    }

    /** The same backup, moved to {@code other}. */
    BackupFile at(Path other) {
        return new BackupFile(other, bytes, format, keys, nextVersion, lastWriteAt, settingsIndex, crc32c);
    }

    String crcHex() {
        return String.format("%08x", crc32c);
    }
}
