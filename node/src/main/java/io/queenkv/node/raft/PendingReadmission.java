package io.queenkv.node.raft;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.queenkv.node.DurableFiles;

/**
 * A mark in a member's data dir: this incarnation started without data of the cluster and has not
 * yet voted. {@link Admission} sets it when the member waits to be admitted; {@link Readmission}
 * clears it once a committed configuration counts the member as a voter. A member outside its own
 * configuration that holds the mark was being re-admitted when a leader stopped half-way, and asks
 * to be taken back in; a voter an admin removed holds none and stays out.
 */
final class PendingReadmission {
    static final String FILE_NAME = "queen-kv-readmission-pending";
    private final Path file;

    PendingReadmission(Path dataDir) {
        this.file = dataDir.resolve(FILE_NAME);
    }

    boolean marked() {
        return Files.exists(file);
    }

    /** Sets the mark, forced to disk before the member can be given the group. */
    void mark() throws IOException {
        if (marked()) return;
        Files.writeString(file, "# Queen KV: this member waits to be re-admitted and has not voted yet. Do not edit.\n",
                StandardCharsets.UTF_8);
        DurableFiles.force(file);
        DurableFiles.forceDirectory(file.getParent()); // the mark's name, too
    }

    void clear() throws IOException {
        Files.deleteIfExists(file);
    }
}
