package io.queenkv.operator.model;

import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterStatus;

class PeersTest {
    @Test
    void oneNode() {
        assertThat(Peers.initialPeers(cluster("kv", "prod", 1)))
                .isEqualTo("n0=kv-0.kv-peers.prod.svc:6634:6632");
    }

    @Test
    void threeNodes() {
        assertThat(Peers.initialPeers(cluster("kv", "prod", 3))).isEqualTo(
                "n0=kv-0.kv-peers.prod.svc:6634:6632,n1=kv-1.kv-peers.prod.svc:6634:6632,n2=kv-2.kv-peers.prod.svc:6634:6632");
    }

    @Test
    void fiveNodesInAnotherNamespace() {
        String peers = Peers.initialPeers(cluster("orders-kv", "team-a", 5));
        assertThat(peers.split(",")).containsExactly(
                "n0=orders-kv-0.orders-kv-peers.team-a.svc:6634:6632",
                "n1=orders-kv-1.orders-kv-peers.team-a.svc:6634:6632",
                "n2=orders-kv-2.orders-kv-peers.team-a.svc:6634:6632",
                "n3=orders-kv-3.orders-kv-peers.team-a.svc:6634:6632",
                "n4=orders-kv-4.orders-kv-peers.team-a.svc:6634:6632");
    }

    @Test
    void theInitialPeerListIsFixedAtBootstrapNotByLaterScaling() {
        QueenKvCluster c = cluster("kv", "prod", 5);
        QueenKvClusterStatus status = new QueenKvClusterStatus();
        status.setBootstrapReplicas(3);
        c.setStatus(status);
        assertThat(Model.bootstrapReplicas(c)).isEqualTo(3);
        assertThat(Peers.initialPeers(c)).contains("n2=").doesNotContain("n3=").doesNotContain("n4=");
    }

    @Test
    void nodeAddressForTheAdminApi() {
        Peers.NodeAddress n = Peers.node(cluster("kv", "prod", 3), 4);
        assertThat(n.id()).isEqualTo("n4");
        assertThat(n.ordinal()).isEqualTo(4);
        assertThat(n.host()).isEqualTo("kv-4.kv-peers.prod.svc");
        assertThat(n.raftAddress()).isEqualTo("kv-4.kv-peers.prod.svc:6634");
        assertThat(n.httpAddress()).isEqualTo("kv-4.kv-peers.prod.svc:6632");
        assertThat(n.httpUrl()).as("TLS is on by default").isEqualTo("https://kv-4.kv-peers.prod.svc:6632");
        QueenKvCluster plain = cluster("kv", "prod", 3);
        plain.getSpec().setTls(new io.queenkv.operator.crd.TlsSpec(io.queenkv.operator.crd.TlsMode.Disabled));
        assertThat(Peers.node(plain, 4).httpUrl()).isEqualTo("http://kv-4.kv-peers.prod.svc:6632");
    }

    @Test
    void names() {
        assertThat(Names.peersService("kv")).isEqualTo("kv-peers");
        assertThat(Names.clientService("kv")).isEqualTo("kv");
        assertThat(Names.statefulSet("kv")).isEqualTo("kv");
        assertThat(Names.configMap("kv")).isEqualTo("kv-config");
        assertThat(Names.pod("kv", 2)).isEqualTo("kv-2");
        assertThat(Names.dataClaim("kv", 2)).isEqualTo("data-kv-2");
        assertThat(Names.nodeId(2)).isEqualTo("n2");
        assertThat(Names.ordinalOf("n2")).isEqualTo(2);
        assertThat(Names.ordinalOf("n10")).isEqualTo(10);
        assertThat(Names.ordinalOf("x2")).isEqualTo(-1);
        assertThat(Names.ordinalOf("n02")).isEqualTo(-1);
        assertThat(Names.ordinalOf(null)).isEqualTo(-1);
    }
}
