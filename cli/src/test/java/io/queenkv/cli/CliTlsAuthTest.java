package io.queenkv.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.access.Access;
import io.queenkv.node.testing.LocalNode;
import io.queenkv.node.testing.TestCertificates;

/** A node with TLS and tokens: the CA and the token from the flags or the environment, for KV and admin calls. */
class CliTlsAuthTest {
    static final String WRITER = "cli-writer-token", ADMIN = "cli-admin-token";

    @TempDir
    static Path dir;
    static LocalNode node;
    static Path ca;

    @BeforeAll
    static void start() throws IOException {
        TestCertificates.Ca clusterCa = TestCertificates.newCa("cli test CA");
        Map<String, String> env = new HashMap<>(TestCertificates.writeNodeFiles(dir, TestCertificates.issue(clusterCa, "n1"), clusterCa.certificate()));
        env.put("QUEEN_KV_TOKENS_FILE", Files.writeString(dir.resolve("tokens"),
                Access.sha256(WRITER) + " tenant-a read-write\n" + Access.sha256(ADMIN) + " tenant-a admin\n").toString());
        node = LocalNode.start(dir.resolve("data"), env);
        ca = Path.of(env.get("QUEEN_KV_TLS_CA_FILE"));
        assertThat(node.baseUrl).startsWith("https://");
    }

    @AfterAll
    static void stop() throws IOException {
        if (node != null) node.close();
    }

    @Test
    void theCaAndTheTokenComeFromTheEnvironmentOrTheFlags() {
        CliRunner viaEnv = CliRunner.against(node.baseUrl).withEnv("QUEEN_KV_CA_FILE", ca.toString()).withEnv("QUEEN_KV_TOKEN", WRITER);
        viaEnv.run("put", "tls", "k", "\"secret\"", "--ttl", "1h").exits(0);
        assertThat(viaEnv.run("-o", "json", "get", "tls", "k").exits(0).json().get("value").asText()).isEqualTo("secret");

        CliRunner bare = CliRunner.against(node.baseUrl);
        assertThat(bare.run("--ca", ca.toString(), "--token", WRITER, "-o", "json", "get", "tls", "k").exits(0).json().get("found").asBoolean()).isTrue();
    }

    @Test
    void aCertificateNotFromTheCaIsNotTrusted() {
        // The JDK's trust store does not know the test CA.
        assertThat(CliRunner.against(node.baseUrl).withEnv("QUEEN_KV_TOKEN", WRITER).run("get", "tls", "k").exits(4).err())
                .contains("unavailable (connection_failed)", "unable to find valid certification path");
        Path other = dir.resolve("other-ca.crt");
        TestCertificates.writePem(other, TestCertificates.newCa("another CA").certificate());
        CliRunner.against(node.baseUrl).withEnv("QUEEN_KV_TOKEN", WRITER).run("--ca", other.toString(), "cluster", "status").exits(4);
        assertThat(CliRunner.against(node.baseUrl).run("--ca", dir.resolve("no-such.crt").toString(), "get", "tls", "k").exits(6).err())
                .contains("cannot be read");
    }

    @Test
    void aMissingOrWeakTokenIsRefused() {
        CliRunner trusting = CliRunner.against(node.baseUrl).withEnv("QUEEN_KV_CA_FILE", ca.toString());
        assertThat(trusting.run("get", "tls", "k").exits(3).err()).startsWith("queen-kv: refused (401 unauthorized)");
        assertThat(trusting.run("cluster", "status").exits(3).err()).startsWith("queen-kv: refused (401 unauthorized)");
        assertThat(trusting.withEnv("QUEEN_KV_TOKEN", WRITER).run("settings", "set", "writeRate=1000").exits(3).err())
                .startsWith("queen-kv: refused (403 forbidden)");
        assertThat(trusting.withEnv("QUEEN_KV_TOKEN", WRITER).run("backup", dir.resolve("denied.backup").toString()).exits(3).err())
                .contains("403 forbidden");
        assertThat(dir.resolve("denied.backup")).doesNotExist();
    }

    @Test
    void anAdminTokenRunsTheAdminCommandsOverTls() {
        CliRunner admin = CliRunner.against(node.baseUrl).withEnv("QUEEN_KV_CA_FILE", ca.toString()).withEnv("QUEEN_KV_TOKEN", ADMIN);
        assertThat(admin.run("-o", "json", "cluster", "status").exits(0).json().get("role").asText()).isEqualTo("leader");
        assertThat(admin.run("settings", "get").exits(0).lines()).anyMatch(l -> l.startsWith("writeRate"));
        Path file = dir.resolve("tls.backup");
        admin.run("backup", file.toString()).exits(0);
        admin.run("restore", file.toString()).exits(0);
    }
}
