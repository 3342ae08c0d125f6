package io.queenkv.node;

import java.io.IOException;
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
