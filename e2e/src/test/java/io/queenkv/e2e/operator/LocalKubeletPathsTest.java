package io.queenkv.e2e.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** How {@link LocalKubelet} maps a job script's mount paths to local dirs (found in CI: a checkout under /tmp). */
class LocalKubeletPathsTest {
    @Test
    void eachMountPathIsMappedOnceEvenWhenALocalDirStartsWithAnotherMountPath() {
        Map<String, Path> mounts = new LinkedHashMap<>();
        mounts.put("/backups", Path.of("/tmp/fresh/volumes/kv-backups/uid"));
        mounts.put("/tmp", Path.of("/tmp/fresh/pods/job/volumes/tmp"));
        String script = "file=\"/backups/kv-1.backup\"\nls -1 /backups/kv-*.backup\njava -Djava.io.tmpdir=/tmp -jar x.jar\ncat /tmp/a";
        assertThat(LocalKubelet.mountPaths(script, mounts)).isEqualTo(
                "file=\"/tmp/fresh/volumes/kv-backups/uid/kv-1.backup\"\nls -1 /tmp/fresh/volumes/kv-backups/uid/kv-*.backup\n"
                        + "java -Djava.io.tmpdir=/tmp -jar x.jar\ncat /tmp/fresh/pods/job/volumes/tmp/a");
    }

    @Test
    void aLongerMountPathWinsOverItsPrefix() {
        Map<String, Path> mounts = new LinkedHashMap<>();
        mounts.put("/etc/queen-kv", Path.of("/local/a"));
        mounts.put("/etc/queen-kv/tls", Path.of("/local/tls"));
        assertThat(LocalKubelet.mountPaths("/etc/queen-kv/tls/ca.crt /etc/queen-kv/x", mounts)).isEqualTo("/local/tls/ca.crt /local/a/x");
    }
}
