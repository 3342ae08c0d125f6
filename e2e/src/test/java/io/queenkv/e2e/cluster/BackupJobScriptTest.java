package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;
import io.queenkv.operator.model.BackupModel;

/**
 * The script of the operator's backup CronJob ({@code spec.backup}), run as its container runs it
 * ({@code sh -c}, the CLI jar, the endpoints in the environment) against a 3-node cluster of node
 * processes: each run leaves one checked backup, and the oldest files of this cluster beyond the
 * retention go, while another cluster's files in the same directory stay.
 */
@Timeout(240)
class BackupJobScriptTest {
    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    @TempDir
    Path dir;
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    @Test
    void eachRunLeavesOneCheckedBackupAndKeepsTheNewest() throws Exception {
        Path cliJar = cliJar();
        cluster = logs.watch(new NodeProcessCluster(3, Map.of(), false)).start();
        KvHttp http = new KvHttp();
        for (int i = 0; i < 50; i++) assertThat(http.put(cluster.url(cluster.leaderId()), "jobs", "k" + i, KvHttp.value(i)).ok()).isTrue();
        Path other = Files.writeString(dir.resolve("other-20200101T000000.000000000Z.backup"), "another cluster's file");
        String endpoints = String.join(",", cluster.ids().stream().map(cluster::url).toList());
        String script = BackupModel.script("kv", 2, cliJar.toString(), dir.toString());

        List<Path> kept = List.of();
        for (int run = 1; run <= 3; run++) {
            Result r = run(script, endpoints);
            assertThat(r.exit()).as("run %d: %s", run, r.output()).isZero();
            kept = backups();
            assertThat(kept).as("after run %d", run).hasSize(Math.min(run, 2));
        }
        assertThat(other).as("another cluster's file").exists();

        for (Path file : kept) {
            Result check = run("java -jar " + cliJar + " restore " + file, endpoints);
            assertThat(check.exit()).as("restore check of %s: %s", file, check.output()).isZero();
        }
    }

    @Test
    void aFailedBackupDeletesNothing() throws Exception {
        Path cliJar = cliJar();
        for (int i = 1; i <= 3; i++) Files.writeString(dir.resolve("kv-2020010" + i + "T000000.000000000Z.backup"), "old " + i);
        Result r = run(BackupModel.script("kv", 1, cliJar.toString(), dir.toString()), "http://127.0.0.1:1");
        assertThat(r.exit()).as("no node answers").isNotZero();
        assertThat(backups()).hasSize(3);
        assertThat(dir).isDirectoryNotContaining("glob:**.partial");
    }

    /** The built CLI jar ({@code -Dqueenkv.cliJar} overrides), as the node image holds it. */
    private static Path cliJar() {
        Path jar = Path.of(System.getProperty("queenkv.cliJar", "../cli/target/queen-kv-cli.jar")).toAbsolutePath().normalize();
        assertThat(jar).as("the CLI jar; build it with `mvn -o -q -DskipTests package -pl cli -am`").isRegularFile();
        return jar;
    }

    private List<Path> backups() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("kv-") && p.getFileName().toString().endsWith(".backup")).sorted().toList();
        }
    }

    record Result(int exit, Path output) {}

    private Result run(String script, String endpoints) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir.getParent(), "job", ".out");
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("QUEEN_KV_ENDPOINTS", endpoints);
        Process p = pb.start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("the job finishes").isTrue();
        ClusterChecks.say("job exit %d: %s", p.exitValue(), Files.readString(out, StandardCharsets.UTF_8).strip());
        return new Result(p.exitValue(), out);
    }
}
