package io.queenkv.operator.model;

import java.util.ArrayList;
import java.util.List;

import io.queenkv.operator.crd.QueenKvCluster;

/** Where each node is reached, and the initial peer list ({@code QUEEN_KV_PEERS}). */
public final class Peers {
    private Peers() {}

    /** One node: what {@code POST /api/v1/admin/members} takes, and where to call it ({@code tls}: HTTPS only). */
    public record NodeAddress(String id, int ordinal, String host, String raftAddress, String httpAddress, boolean tls) {
        public String httpUrl() { return (tls ? "https://" : "http://") + httpAddress; }
    }

    public static NodeAddress node(QueenKvCluster c, int ordinal) {
        String host = Names.podHost(Model.name(c), Model.namespace(c), ordinal);
        return new NodeAddress(Names.nodeId(ordinal), ordinal, host, host + ":" + Model.RAFT_PORT, host + ":" + Model.HTTP_PORT,
                TlsModel.enabled(Model.spec(c)));
    }

    /** Ordinals {@code 0..count-1}. */
    public static List<NodeAddress> nodes(QueenKvCluster c, int count) {
        List<NodeAddress> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) nodes.add(node(c, i));
        return nodes;
    }

    /**
     * {@code n0=<c>-0.<c>-peers.<ns>.svc:6634:6632,…} over the bootstrap ordinals only: a node added
     * later is not in it, so it starts with no group and waits to be added through the admin API.
     */
    public static String initialPeers(QueenKvCluster c) {
        StringBuilder b = new StringBuilder();
        for (NodeAddress n : nodes(c, Model.bootstrapReplicas(c))) {
            if (b.length() > 0) b.append(',');
            b.append(n.id()).append('=').append(n.host()).append(':').append(Model.RAFT_PORT).append(':').append(Model.HTTP_PORT);
        }
        return b.toString();
    }
}
