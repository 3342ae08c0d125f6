package io.queenkv.operator.nodes;

import java.util.List;

import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.QueenKvCluster;

/**
 * The operator's access to the nodes' admin API (README "Admin API"). A node is named by its cluster
 * and StatefulSet ordinal; the implementation knows how to reach it ({@link HttpNodeAdmin}: the pod's
 * stable DNS name, with the admin token of {@code spec.auth.adminTokenSecretRef}).
 *
 * <p>Every call either answers or throws {@link NodeAdminException}; the admin calls answer once the
 * change has committed.
 */
public interface NodeAdmin {

    /** {@code GET /api/v1/cluster}: the node's view of the group. */
    ClusterView cluster(QueenKvCluster c, int ordinal);

    /** {@code GET /readyz}: a member that knows a leader and has applied what the leader committed. */
    boolean ready(QueenKvCluster c, int ordinal);

    /** {@code POST /api/v1/admin/members}, sent to {@code viaOrdinal} (the leader). Answers the members. */
    List<ClusterView.Member> addMember(QueenKvCluster c, int viaOrdinal, String id, String raftAddress, String httpAddress);

    /** {@code DELETE /api/v1/admin/members/{id}}, sent to {@code viaOrdinal} (the leader). Answers the members. */
    List<ClusterView.Member> removeMember(QueenKvCluster c, int viaOrdinal, String id);

    /** {@code POST /api/v1/admin/leadership}: hands leadership to {@code to} (null: any other member). Answers the new leader. */
    String transferLeadership(QueenKvCluster c, int viaOrdinal, String to);

    /** {@code PUT /api/v1/admin/settings}: commits the set fields of {@code settings}; the others keep their value. */
    SettingsChange changeSettings(QueenKvCluster c, int viaOrdinal, KvSettings settings);

    /** What {@code PUT /api/v1/admin/settings} answers: the settings now in force and the log index that put them in force. */
    record SettingsChange(KvSettings settings, long settingsIndex) {}
}
