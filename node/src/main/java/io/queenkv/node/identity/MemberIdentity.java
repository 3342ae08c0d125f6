package io.queenkv.node.identity;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Who this node is: the cluster it belongs to, its member id, and the incarnation of its data dir
 * (a new one each time a member starts on an empty data dir). The Raft group id derives from the
 * cluster id, so nodes of different clusters never take each other for peers.
 */
public record MemberIdentity(String clusterId, String nodeId, String incarnation) {
    public static final Pattern CLUSTER_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}");

    public MemberIdentity {
        if (!CLUSTER_ID.matcher(clusterId).matches()) throw new IllegalArgumentException("bad cluster id " + clusterId);
    }

    /** The Raft group of this cluster: the same on every member, different for every cluster. */
    public UUID groupUuid() {
        return UUID.nameUUIDFromBytes(("queen-kv-cluster:" + clusterId).getBytes(StandardCharsets.UTF_8));
    }
}
