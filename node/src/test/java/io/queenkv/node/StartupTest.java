package io.queenkv.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.testing.TestCertificates;
import io.queenkv.node.testing.TestCertificates.Ca;

/** A bad setting stops the real process at start-up, with a message naming it. */
class StartupTest {
    @Test
    void aBadSettingStopsStartUpWithAClearMessage() throws Exception {
        String out = startExpectingExit2(Map.of("QUEEN_KV_MAX_VALUE_BYTES", "64k"));
        assertThat(out).contains("QUEEN_KV_MAX_VALUE_BYTES=64k is not a whole number");
    }

    @Test
    void aTlsKeyThatIsNotTheCertificatesStopsStartUpWithOneLine(@TempDir Path dir) throws Exception {
        Ca ca = TestCertificates.newCa("startup test CA");
        Map<String, String> env = new HashMap<>(TestCertificates.writeNodeFiles(dir, TestCertificates.issue(ca, "n1"), ca.certificate()));
        TestCertificates.writePem(dir.resolve("node.key"), TestCertificates.issue(ca, "other").key());
        env.put("QUEEN_KV_DATA_DIR", dir.resolve("data").toString());
        String out = startExpectingExit2(env);
        assertThat(out).contains("queen-kv: QUEEN_KV_TLS_KEY_FILE=" + dir.resolve("node.key") + ": is not the key of the certificate in QUEEN_KV_TLS_CERT_FILE=");
        assertThat(out).doesNotContain("Exception").doesNotContain("\tat ");
    }

    private static String startExpectingExit2(Map<String, String> env) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), "io.queenkv.node.Main"));
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isEqualTo(2);
        return out;
    }
}
