package io.queenkv.node.raft;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.DurableFiles;

/**
 * A mark in a member's data dir: this incarnation started without data of the cluster and has not
 * yet voted. {@link Admission} sets it when the member waits to be admitted; it is cleared once a
 * committed configuration counts the member as a voter ({@link #clearIfVoting}): as the state
 * machine applies that configuration, and on every round of the member's duties should a clear be
 * missed (a crash in between). A member outside its own configuration that holds the mark was
 * being re-admitted when a leader stopped half-way, and asks to be taken back in
 * ({@link Readmission}); a voter an admin removed holds none and stays out, even one removed as soon
 * as it had caught up with the configuration that added it.
 */
final class PendingReadmission {
    private static final Logger LOG = LoggerFactory.getLogger(PendingReadmission.class);
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

    /** Clears the mark if {@code self}'s configuration counts it as a voter and is committed, not a change under way. */
    void clearIfVoting(RaftServer.Division self) throws IOException {
        if (!marked()) return;
        RaftConfiguration conf = self.getRaftConf();
        if (conf.getPeer(self.getId(), RaftPeerRole.FOLLOWER) != null && conf.getPreviousPeers().isEmpty()
                && conf.getLogEntryIndex() <= self.getRaftLog().getLastCommittedIndex()
                && Files.deleteIfExists(file))
            LOG.info("this member votes in a committed configuration: its re-admission is complete");
    }
}
