package io.queenkv.operator.nodes;

import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import io.queenkv.operator.crd.KvSettings;

/**
 * One node's view of the group, as {@code GET /api/v1/cluster} answers it (API.md §4). A node that was
 * started outside the peer list and not yet added answers {@code members: []}. A member that is not
 * voting has role {@code learner}; {@code readmitting} names the members being re-admitted after they lost
 * their disk (removed, added back as learners, promoted once caught up).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ClusterView(String nodeId, String role, long term, String leaderId, List<Member> members,
                          long commitIndex, long appliedIndex, KvSettings settings, long settingsIndex, List<String> readmitting) {
    public static final String LEARNER = "learner";

    public ClusterView {
        members = members == null ? List.of() : List.copyOf(members);
        readmitting = readmitting == null ? List.of() : List.copyOf(readmitting);
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Member(String id, String raftAddress, String httpAddress, String role) {
        public boolean learner() { return LEARNER.equals(role); }
    }

    public boolean isLeader() { return "leader".equals(role); }

    /** Whether this node belongs to a group (a node waiting to be added has no members). */
    public boolean inGroup() { return !members.isEmpty(); }

    public boolean hasMember(String id) { return members.stream().anyMatch(m -> m.id().equals(id)); }

    public Optional<Member> member(String id) { return members.stream().filter(m -> m.id().equals(id)).findFirst(); }
}
