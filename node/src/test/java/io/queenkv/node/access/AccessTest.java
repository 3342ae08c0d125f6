package io.queenkv.node.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.kv.Refusal;

/** The tokens file is re-read when it changes, without a restart; a broken new file changes nothing. */
class AccessTest {
    @TempDir
    Path dir;
    final AtomicLong nanos = new AtomicLong(1_000);

    @Test
    void aChangedTokensFileTakesOverAfterTheRecheckInterval() throws IOException {
        Path file = Files.writeString(dir.resolve("tokens"), Access.sha256("old") + " tenant-a read-write\n");
        Access access = Access.fromFile(file, nanos::get);
        assertThat(access.authenticate("Bearer old").tenant()).isEqualTo("tenant-a");

        Files.writeString(file, Access.sha256("new") + " tenant-b read-only\n");
        // Not looked at again before the interval: the old token still works.
        assertThat(access.authenticate("Bearer old").tenant()).isEqualTo("tenant-a");
        nanos.addAndGet(Access.RECHECK_NANOS);
        assertThat(access.authenticate("Bearer new").tenant()).isEqualTo("tenant-b");
        assertThat(access.authenticate("Bearer new").role()).isEqualTo(Access.Role.READ_ONLY);
        assertThatThrownBy(() -> access.authenticate("Bearer old")).isInstanceOf(Refusal.class);
    }

    @Test
    void aBrokenNewFileKeepsTheTokensInForce() throws IOException {
        Path file = Files.writeString(dir.resolve("tokens"), Access.sha256("t") + " tenant-a admin\n");
        Access access = Access.fromFile(file, nanos::get);
        Files.writeString(file, "this is not a tokens file\n");
        nanos.addAndGet(Access.RECHECK_NANOS);
        assertThat(access.authenticate("Bearer t").role()).isEqualTo(Access.Role.ADMIN);
        Files.delete(file);
        nanos.addAndGet(Access.RECHECK_NANOS);
        assertThat(access.authenticate("Bearer t").role()).isEqualTo(Access.Role.ADMIN);
    }
}
