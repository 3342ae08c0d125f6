package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/**
 * The intent the reconciler writes to status before acting, so that a restarted operator resumes
 * (or safely repeats) the same idempotent step instead of starting a different one.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PendingOperation {
    @Required
    private OperationType type;

    @JsonPropertyDescription("Node id of the member being added, removed or restarted (n<ordinal>).")
    private String member;

    @JsonPropertyDescription("StatefulSet ordinal of that member.")
    @Min(0)
    private Integer ordinal;

    @JsonPropertyDescription("Pod-template hash the member is rolled to (Roll only).")
    private String targetPodTemplateHash;

    // A plain string in the schema, as before the enum: status written by earlier operators stays valid.
    @JsonPropertyDescription("Last step done, for the reconciler to resume from: Recorded, LeadershipMoved, MemberRemoved, PodDeleted or MemberAdded.")
    @SchemaFrom(type = String.class)
    private OperationStep step;

    @JsonPropertyDescription("When the operation started (RFC 3339).")
    private String startedAt;

    public PendingOperation() {}

    public PendingOperation(OperationType type, String member, Integer ordinal, String startedAt) {
        this.type = type;
        this.member = member;
        this.ordinal = ordinal;
        this.startedAt = startedAt;
    }

    public OperationType getType() { return type; }
    public void setType(OperationType type) { this.type = type; }
    public String getMember() { return member; }
    public void setMember(String member) { this.member = member; }
    public Integer getOrdinal() { return ordinal; }
    public void setOrdinal(Integer ordinal) { this.ordinal = ordinal; }
    public String getTargetPodTemplateHash() { return targetPodTemplateHash; }
    public void setTargetPodTemplateHash(String h) { this.targetPodTemplateHash = h; }
    public OperationStep getStep() { return step; }
    public void setStep(OperationStep step) { this.step = step; }
    public String getStartedAt() { return startedAt; }
    public void setStartedAt(String startedAt) { this.startedAt = startedAt; }
}
