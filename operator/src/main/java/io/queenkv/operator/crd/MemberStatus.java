package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One member of the Raft group, as {@code GET /api/v1/cluster} reports it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MemberStatus {
    private String id;
    private String raftAddress;
    private String httpAddress;
    /** leader, follower, candidate or learner. */
    private String role;
    private Boolean ready;
    /** Being re-admitted after it lost its disk: removed, added back as a learner, promoted once caught up. */
    private Boolean readmitting;
    @JsonPropertyDescription("Since when the member has not been ready (RFC 3339): set when it is first seen not ready, kept while it"
            + " stays so, removed once it is ready again. During a scale-down, a member that stays is replaced once this is older than"
            + " spec.replaceNotServingAfter.")
    private String notReadySince;

    public MemberStatus() {}

    public MemberStatus(String id, String raftAddress, String httpAddress, String role, Boolean ready) {
        this.id = id;
        this.raftAddress = raftAddress;
        this.httpAddress = httpAddress;
        this.role = role;
        this.ready = ready;
    }

    public String getId() { return id; }
    public void setId(String id) { this.id = id; }
    public String getRaftAddress() { return raftAddress; }
    public void setRaftAddress(String raftAddress) { this.raftAddress = raftAddress; }
    public String getHttpAddress() { return httpAddress; }
    public void setHttpAddress(String httpAddress) { this.httpAddress = httpAddress; }
    public String getRole() { return role; }
    public void setRole(String role) { this.role = role; }
    public Boolean getReady() { return ready; }
    public void setReady(Boolean ready) { this.ready = ready; }
    public Boolean getReadmitting() { return readmitting; }
    public void setReadmitting(Boolean readmitting) { this.readmitting = readmitting; }
    public String getNotReadySince() { return notReadySince; }
    public void setNotReadySince(String notReadySince) { this.notReadySince = notReadySince; }
}
