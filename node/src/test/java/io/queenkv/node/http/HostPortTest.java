package io.queenkv.node.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.queenkv.node.kv.Refusal;

/** Member addresses the admin API takes, and the ones it refuses (HostileInputTest sends those over HTTP). */
class HostPortTest {
    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"127.0.0.1:1", "localhost:65535", "kv-0.kv-peers.default.svc:6634", "KV-0.Example.COM:6634", "10.0.0.255:6634",
            "[::1]:6634", "[2001:db8::1]:1", "[::ffff:10.0.0.1]:6634", "[fe80:0:0:0:0:0:0:1]:6634", "[::]:6634", "a:1"})
    void aValidAddressIsTakenAsItIs(String address) {
        HostPort parsed = HostPort.parse(address, "raftAddress");
        assertThat(parsed.host() + ":" + parsed.port()).isEqualTo(address);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"a:b:7298", "::1:6634", "[::1]", "[1::2::3]:1", "[12345::1]:1", "[1:2:3:4:5:6:7]:1", "256.0.0.1:1", "1.2.3:1",
            "host:00", "host:065535", "host.:1", ".host:1", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx:1", "a_b:1", "[::1]x:1"})
    void anInvalidAddressIsABadRequest(String address) {
        assertThatThrownBy(() -> HostPort.parse(address, "raftAddress")).isInstanceOf(Refusal.class)
                .hasMessageContaining("'raftAddress' must be host:port");
    }
}
