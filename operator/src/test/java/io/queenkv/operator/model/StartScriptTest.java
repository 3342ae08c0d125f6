package io.queenkv.operator.model;

import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Runs the container's start script under sh with a stand-in {@code java} that prints what it got. */
@EnabledOnOs({OS.LINUX, OS.MAC})
class StartScriptTest {
    @TempDir
    Path dir;

    @Test
    void derivesNodeIdAndHostFromThePodName() throws IOException, InterruptedException {
        String out = runStartScript(StatefulSetModel.container(cluster("orders-kv", "team-a", 3)).getCommand());
        assertThat(out).isEqualTo("id=n12 host=orders-kv-12.orders-kv-peers.team-a.svc args=-Xmx1g -XX:+UseZGC -jar /app/queen-kv-node.jar");
    }

    /** The image's AOT cache is used only when it is named by the jar's own SHA-256 (the JVM would run a stale one). */
    @Test
    void usesTheAotCacheOfThisVeryJarOnly() throws Exception {
        // The image's /app, here in the temp dir.
        Path app = Files.createDirectories(dir.resolve("app"));
        List<String> command = StatefulSetModel.container(cluster("orders-kv", "team-a", 3)).getCommand().stream()
                .map(part -> part.replace("/app/", app + "/")).toList();
        Path jar = Files.write(app.resolve("queen-kv-node.jar"), "the node jar".getBytes(StandardCharsets.UTF_8));
        Path aotDir = Files.createDirectories(app.resolve("aot"));
        Files.writeString(aotDir.resolve("0123456789abcdef.aot"), "the cache of another jar");
        assertThat(runStartScript(command)).endsWith("args=-Xmx1g -XX:+UseZGC -jar " + jar);

        String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(jar)));
        Path cache = Files.writeString(aotDir.resolve(sha.substring(0, 16) + ".aot"), "the cache of this jar");
        assertThat(runStartScript(command)).endsWith("args=-XX:AOTCache=" + cache + " -Xmx1g -XX:+UseZGC -jar " + jar);
    }

    private String runStartScript(List<String> command) throws IOException, InterruptedException {
        Path java = dir.resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"id=$QUEEN_KV_NODE_ID host=$QUEEN_KV_HOST args=$*\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", dir + ":" + System.getenv("PATH"));
        pb.environment().put("POD_NAME", "orders-kv-12");
        pb.environment().put("POD_NAMESPACE", "team-a");
        pb.environment().put("JAVA_OPTS", "-Xmx1g -XX:+UseZGC");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }
}
