package io.queenkv.cli;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One node's view of the group, as {@code GET /api/v1/cluster} answers it (API.md §4; README
 * "Identity"). {@code settings} stays the node's JSON object, so settings added later show up
 * without a change here.
 */
record ClusterView(String nodeId, String clusterId, String membership, String role, long term, String leaderId,
                   List<Member> members, List<String> readmitting, long commitIndex, long appliedIndex,
                   JsonNode settings, long settingsIndex) {
    ClusterView {
        members = members == null ? List.of() : List.copyOf(members);
        readmitting = readmitting == null ? List.of() : List.copyOf(readmitting);
    }

    /** A member as {@code /api/v1/cluster} lists it; the admin routes' answers have no role. */
    record Member(String id, String raftAddress, String httpAddress, String role) {}

    static ClusterView of(JsonNode body) {
        try {
            return Json.MAPPER.treeToValue(body, ClusterView.class);
        } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
            throw new io.queenkv.client.QueenKvException("unexpected answer of /api/v1/cluster: " + e.getMessage(), e);
        }
    }

    static List<Member> members(JsonNode body) {
        return of(body).members();
    }
}
