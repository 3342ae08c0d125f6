package io.queenkv.node;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Files a node relies on after a crash (its stamp, marks, snapshots): forced to disk before anything counts on them. */
public final class DurableFiles {
    private DurableFiles() {}

    /** fsync of a file's content. */
    public static void force(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * A new file (replacing any of that name) written through an output stream that forces what it
     * wrote every {@code forceEvery} bytes. A large file written through the page cache and forced
     * once at the end hands the disk all of it at once, and the Raft log's own fsyncs queue behind
     * that; forced as it goes, the disk gets it in slices between them. Still call {@link #force}
     * once the stream is closed.
     */
    public static OutputStream forcedAsWritten(Path file, long forceEvery) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        return new OutputStream() {
            private long unforced;

            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
                while (buffer.hasRemaining()) channel.write(buffer);
                unforced += length;
                if (unforced >= forceEvery) {
                    channel.force(false);
                    unforced = 0;
                }
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }

    /** Renames {@code temp}, already forced, to {@code file} atomically, and forces their directory so the new name survives a crash too. */
    public static void moveIntoPlace(Path temp, Path file) throws IOException {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(file.getParent());
    }

    /** fsync of a directory, which makes the names created or renamed in it durable. */
    public static void forceDirectory(Path dir) {
        try {
            force(dir);
        } catch (IOException ignored) {
            // Not every file system lets a directory be opened for a sync; a rename is atomic all the same.
        }
    }
}
