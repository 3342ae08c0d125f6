package io.queenkv.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.testing.LocalNode;
import io.queenkv.node.testing.TestCertificates;
import io.queenkv.node.testing.TestCertificates.Ca;

/** A bad setting stops the real process at start-up, with a message naming it; --version and --help only print. */
class StartupTest {
    /** The heap gives back what a collection cycle finds free beyond 30 %; flags given to the JVM win. */
    @Test
    void aNodeKeepsAtMostThirtyPercentOfItsHeapFreeUnlessTheJvmWasToldOtherwise() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        assumeTrue(vm.getVMOption("MaxHeapFreeRatio").getOrigin() == VMOption.Origin.DEFAULT
                && vm.getVMOption("MinHeapFreeRatio").getOrigin() == VMOption.Origin.DEFAULT,
                "this test JVM was started with heap free ratios of its own");
        Main.heapFollowsLiveData();
        assertThat(vm.getVMOption("MinHeapFreeRatio").getValue()).isEqualTo("10");
        assertThat(vm.getVMOption("MaxHeapFreeRatio").getValue()).isEqualTo("30");

        vm.setVMOption("MaxHeapFreeRatio", "55"); // as if given: no longer the JVM's default
        Main.heapFollowsLiveData();
        assertThat(vm.getVMOption("MaxHeapFreeRatio").getValue()).isEqualTo("55");
    }

    @Test
    void aBadSettingStopsStartUpWithAClearMessage() throws Exception {
        String out = startExpectingExit2(Map.of("QUEEN_KV_MAX_VALUE_BYTES", "64k"));
        assertThat(out).contains("QUEEN_KV_MAX_VALUE_BYTES=64k is not a whole number");
        assertThat(startExpectingExit2(Map.of("QUEEN_KV_LOG_LEVEL", "loud"))).contains("QUEEN_KV_LOG_LEVEL=loud is not one of error, warn, info, debug, trace");
    }

    @Test
    void aTlsKeyThatIsNotTheCertificatesStopsStartUpWithOneLine(@TempDir Path dir) throws Exception {
        Ca ca = TestCertificates.newCa("startup test CA");
        Map<String, String> env = new HashMap<>(TestCertificates.writeNodeFiles(dir, TestCertificates.issue(ca, "n1"), ca.certificate()));
        TestCertificates.writePem(dir.resolve("node.key"), TestCertificates.issue(ca, "other").key());
        env.put("QUEEN_KV_DATA_DIR", dir.resolve("data").toString());
        // Free ports: the ports are checked first, and the default ones may be taken on a shared machine.
        env.put("QUEEN_KV_HTTP_PORT", Integer.toString(LocalNode.freePort()));
        env.put("QUEEN_KV_RAFT_PORT", Integer.toString(LocalNode.freePort()));
        String out = startExpectingExit2(env);
        assertThat(out).contains("queen-kv: QUEEN_KV_TLS_KEY_FILE=" + dir.resolve("node.key") + ": is not the key of the certificate in QUEEN_KV_TLS_CERT_FILE=");
        assertThat(out).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void versionAndHelpPrintAndExitWithoutStartingANode(@TempDir Path dir) throws Exception {
        Map<String, String> env = Map.of("QUEEN_KV_DATA_DIR", dir.resolve("data").toString());
        String version = run(env, 0, "--version");
        assertThat(version).matches("queen-kv-node \\d+\\.\\d+\\.\\d+\\S* \\(Java .+\\)\\R");
        String help = run(env, 0, "--help");
        assertThat(help).contains("usage: java -jar queen-kv-node.jar").contains("QUEEN_KV_PEERS").contains("--train runs a three-node cluster");
        for (io.queenkv.node.kv.Setting s : io.queenkv.node.kv.Setting.values()) assertThat(help).contains(s.env);
        assertThat(run(env, 2, "--bogus")).contains("unknown argument --bogus");
        assertThat(dir.resolve("data")).doesNotExist();
    }

    @Test
    void aTakenPortStopsStartUpWithOneLineAndLeavesNoDataDir(@TempDir Path dir) throws Exception {
        for (String which : List.of("QUEEN_KV_RAFT_PORT", "QUEEN_KV_HTTP_PORT")) {
            try (ServerSocket holder = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                Map<String, String> env = new HashMap<>(Map.of("QUEEN_KV_DATA_DIR", dir.resolve("data").toString(),
                        "QUEEN_KV_RAFT_PORT", Integer.toString(LocalNode.freePort()), "QUEEN_KV_HTTP_PORT", Integer.toString(LocalNode.freePort())));
                env.put(which, Integer.toString(holder.getLocalPort()));
                String out = run(env, 1);
                assertThat(out).as(which).contains("(" + which + ") cannot be listened on").doesNotContain("\tat ").doesNotContain("Exception");
                assertThat(out.strip().lines()).hasSize(1);
                assertThat(dir.resolve("data")).doesNotExist();
            }
        }
    }

    /** --train drives a real three-node cluster in the process, exits 0, and leaves nothing in the temp dir. */
    @Test
    void trainingDrivesAClusterOfThreeAndLeavesNothingBehind(@TempDir Path tmp) throws Exception {
        String out = run(Map.of(), 0, List.of("-Djava.io.tmpdir=" + tmp), "--train", "3");
        java.util.regex.Matcher counts = java.util.regex.Pattern.compile("trained for 3 s: (\\d+) calls answered, (\\d+) refused").matcher(out);
        assertThat(counts.find()).as(out).isTrue();
        assertThat(Long.parseLong(counts.group(1))).isGreaterThan(100);
        assertThat(Long.parseLong(counts.group(2))).isLessThanOrEqualTo(Long.parseLong(counts.group(1)) / 100);
        try (var left = Files.list(tmp)) {
            assertThat(left.filter(p -> p.getFileName().toString().startsWith("queen-kv-training"))).isEmpty();
        }
        assertThat(run(Map.of(), 2, "--train", "0")).contains("--train takes one optional argument, the seconds to train (1 to 3600");
    }

    private static String startExpectingExit2(Map<String, String> env) throws Exception {
        return run(env, 2);
    }

    private static String run(Map<String, String> env, int exitCode, String... args) throws Exception {
        return run(env, exitCode, List.of(), args);
    }

    private static String run(Map<String, String> env, int exitCode, List<String> jvmOptions, String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new java.util.ArrayList<>(List.of(java));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.queenkv.node.Main"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        // Into a file, not a pipe: a process that prints more than a pipe holds would block on it.
        Path output = Files.createTempFile("queen-kv-startup-test", ".out");
        try {
            pb.redirectErrorStream(true).redirectOutput(output.toFile());
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) p.destroyForcibly();
            String out = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(p.isAlive()).as(out).isFalse();
            assertThat(p.exitValue()).as(out).isEqualTo(exitCode);
            return out;
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
