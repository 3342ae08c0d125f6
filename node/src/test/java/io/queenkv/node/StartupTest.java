package io.queenkv.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** A bad setting stops the real process at start-up, with a message naming it. */
class StartupTest {
    @Test
    void aBadSettingStopsStartUpWithAClearMessage() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), "io.queenkv.node.Main"));
        pb.environment().put("QUEEN_KV_MAX_VALUE_BYTES", "64k");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(out).contains("QUEEN_KV_MAX_VALUE_BYTES=64k is not a whole number");
    }
}
