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
        Path java = dir.resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"id=$QUEEN_KV_NODE_ID host=$QUEEN_KV_HOST args=$*\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));

        List<String> command = StatefulSetModel.container(cluster("orders-kv", "team-a", 3)).getCommand();
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", dir + ":" + System.getenv("PATH"));
        pb.environment().put("POD_NAME", "orders-kv-12");
        pb.environment().put("POD_NAMESPACE", "team-a");
        pb.environment().put("JAVA_OPTS", "-Xmx1g -XX:+UseZGC");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).isZero();
        assertThat(out).isEqualTo("id=n12 host=orders-kv-12.orders-kv-peers.team-a.svc args=-Xmx1g -XX:+UseZGC -jar /app/queen-kv-node.jar");
    }
}
