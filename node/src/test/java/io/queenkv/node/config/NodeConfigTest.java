package io.queenkv.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.kv.Settings;

class NodeConfigTest {
    @Test
    void noEnvironmentIsAOneNodeClusterOnTheDefaultPorts() {
        NodeConfig c = NodeConfig.fromEnv(Map.of());
        assertThat(c.nodeId()).isEqualTo("n1");
        assertThat(c.httpPort()).isEqualTo(6632);
        assertThat(c.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(c.raftPort()).isEqualTo(6634);
        assertThat(c.dataDir()).isEqualTo(Path.of("data"));
        assertThat(c.peers()).containsExactly(new NodeConfig.Peer("n1", "127.0.0.1", 6634, 6632));
        assertThat(c.seedSettings()).isEqualTo(Settings.DEFAULTS);
        assertThat(c.tokensFile()).isNull();
        assertThat(c.tls()).isNull();
    }

    @Test
    void withTheThreeTlsFilesTheNodeBindsEveryAddressAndTheBindAddressOverridesEitherDefault(@TempDir Path dir) throws Exception {
        Map<String, String> env = tlsEnv(dir);
        NodeConfig c = NodeConfig.fromEnv(env);
        assertThat(c.tls()).isEqualTo(new NodeConfig.TlsFiles(dir.resolve("node.crt"), dir.resolve("node.key"), dir.resolve("ca.crt")));
        assertThat(c.bindAddress()).isEqualTo("0.0.0.0");
        assertThat(c.raftOpenToOtherHosts()).isFalse();

        env.put("QUEEN_KV_BIND_ADDRESS", "127.0.0.1");
        assertThat(NodeConfig.fromEnv(env).bindAddress()).isEqualTo("127.0.0.1");
        assertThat(NodeConfig.fromEnv(Map.of("QUEEN_KV_BIND_ADDRESS", "0.0.0.0")).bindAddress()).isEqualTo("0.0.0.0");
    }

    @Test
    void theRaftPortIsOpenToOtherHostsOnlyWithoutTlsOnANonLoopbackAddress() {
        assertThat(NodeConfig.fromEnv(Map.of()).raftOpenToOtherHosts()).isFalse();
        assertThat(NodeConfig.fromEnv(Map.of("QUEEN_KV_BIND_ADDRESS", "localhost")).raftOpenToOtherHosts()).isFalse();
        assertThat(NodeConfig.fromEnv(Map.of("QUEEN_KV_BIND_ADDRESS", "0.0.0.0")).raftOpenToOtherHosts()).isTrue();
    }

    @Test
    void tlsNeedsAllThreeFilesAndEachMustBeReadable(@TempDir Path dir) throws Exception {
        Map<String, String> env = tlsEnv(dir);
        env.remove("QUEEN_KV_TLS_CA_FILE");
        env.put("QUEEN_KV_MAX_VALUE_BYTES", "lots");
        assertThatThrownBy(() -> NodeConfig.fromEnv(env))
                .hasMessageContaining("TLS needs all of QUEEN_KV_TLS_CERT_FILE, QUEEN_KV_TLS_KEY_FILE, QUEEN_KV_TLS_CA_FILE; set: QUEEN_KV_TLS_CERT_FILE, QUEEN_KV_TLS_KEY_FILE")
                .hasMessageContaining("QUEEN_KV_MAX_VALUE_BYTES=lots");

        Map<String, String> missing = tlsEnv(dir);
        missing.put("QUEEN_KV_TLS_KEY_FILE", dir.resolve("nope.key").toString());
        missing.put("QUEEN_KV_TLS_CA_FILE", dir.toString());
        assertThatThrownBy(() -> NodeConfig.fromEnv(missing))
                .hasMessageContaining("QUEEN_KV_TLS_KEY_FILE=" + dir.resolve("nope.key") + " is not a file")
                .hasMessageContaining("QUEEN_KV_TLS_CA_FILE=" + dir + " is not a file");
    }

    /** The three variables, naming empty files in {@code dir} (NodeConfig checks only that they can be read). */
    private static Map<String, String> tlsEnv(Path dir) throws java.io.IOException {
        Map<String, String> env = new java.util.HashMap<>();
        for (String[] v : new String[][] {{"QUEEN_KV_TLS_CERT_FILE", "node.crt"}, {"QUEEN_KV_TLS_KEY_FILE", "node.key"}, {"QUEEN_KV_TLS_CA_FILE", "ca.crt"}}) {
            java.nio.file.Files.writeString(dir.resolve(v[1]), "");
            env.put(v[0], dir.resolve(v[1]).toString());
        }
        return env;
    }

    @Test
    void everyLimitAndRateIsReadFromTheEnvironment() {
        NodeConfig c = NodeConfig.fromEnv(Map.of("QUEEN_KV_MAX_OPS_PER_CALL", "10", "QUEEN_KV_MAX_KEYS_PER_CALL", "4096",
                "QUEEN_KV_MAX_VALUE_BYTES", "100", "QUEEN_KV_MAX_BODY_BYTES", "2048", "QUEEN_KV_WRITE_RATE", "5",
                "QUEEN_KV_READ_RATE", "7"));
        assertThat(c.seedSettings()).isEqualTo(new Settings(10, 4096, 100, 2048, 5, 7));
    }

    @Test
    void peersAreParsedAndThisNodesPortsFollowTheList() {
        NodeConfig c = NodeConfig.fromEnv(Map.of("QUEEN_KV_NODE_ID", "n2",
                "QUEEN_KV_PEERS", "n1=a.peers:7001:7000, n2=b.peers:7011:7010,n3=c.peers:7021:7020"));
        assertThat(c.peers()).hasSize(3);
        assertThat(c.raftPort()).isEqualTo(7011);
        assertThat(c.httpPort()).isEqualTo(7010);
        assertThat(c.self()).isEqualTo(new NodeConfig.Peer("n2", "b.peers", 7011, 7010));
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        assertThatThrownBy(() -> NodeConfig.fromEnv(Map.of(
                "QUEEN_KV_MAX_VALUE_BYTES", "lots",
                "QUEEN_KV_MAX_KEYS_PER_CALL", "5000",
                "QUEEN_KV_HTTP_PORT", "70000",
                "QUEEN_KV_PEERS", "n1=host:1,n2=host:x:2,n2=h:3:4,n2=h:5:6",
                "QUEEN_KV_NODE_ID", "bad id")))
                .isInstanceOf(NodeConfig.ConfigException.class)
                .hasMessageContaining("QUEEN_KV_MAX_VALUE_BYTES=lots is not a whole number")
                .hasMessageContaining("QUEEN_KV_MAX_KEYS_PER_CALL=5000 is outside 1..4096")
                .hasMessageContaining("QUEEN_KV_HTTP_PORT=70000 is outside 1..65535")
                .hasMessageContaining("'n1=host:1' is not id=host:raftPort:httpPort")
                .hasMessageContaining("'n2=host:x:2' has a port outside 1..65535")
                .hasMessageContaining("names 'n2' twice")
                .hasMessageContaining("QUEEN_KV_NODE_ID must match");
    }

    @Test
    void portsThatContradictThePeerListAreRefused() {
        assertThatThrownBy(() -> NodeConfig.fromEnv(Map.of("QUEEN_KV_NODE_ID", "n1", "QUEEN_KV_RAFT_PORT", "9000",
                "QUEEN_KV_PEERS", "n1=h:7001:7000")))
                .hasMessageContaining("QUEEN_KV_RAFT_PORT=9000 but QUEEN_KV_PEERS gives n1 Raft port 7001");
    }
}
