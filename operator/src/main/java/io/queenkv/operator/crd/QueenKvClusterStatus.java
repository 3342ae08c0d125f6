package io.queenkv.operator.crd;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;

/** What the operator observed and what it is in the middle of doing. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QueenKvClusterStatus {
    /** Condition types. */
    public static final String AVAILABLE = "Available";
    public static final String PROGRESSING = "Progressing";
    public static final String DEGRADED = "Degraded";
    /**
     * The conditions kstatus (kubectl wait, Flux, Argo CD, cli-utils) reads, derived from the three
     * above: Ready once available, settled and healthy; Reconciling while the operator works
     * towards the spec; Stalled when it cannot get there without help (a step stuck or refused).
     */
    public static final String READY = "Ready";
    public static final String RECONCILING = "Reconciling";
    public static final String STALLED = "Stalled";

    @JsonPropertyDescription("metadata.generation of the spec this status reflects.")
    private Long observedGeneration;

    private ClusterPhase phase;

    @JsonPropertyDescription("Members of the group (the StatefulSet's replicas once a scale step is done).")
    @StatusReplicas
    private Integer replicas;

    @JsonPropertyDescription("Pods whose node is a ready member of the group.")
    private Integer readyReplicas;

    @JsonPropertyDescription("Replicas the group was created with: the fixed initial peer list (QUEEN_KV_PEERS) holds ordinals 0..bootstrapReplicas-1.")
    private Integer bootstrapReplicas;

    @JsonPropertyDescription("When the bootstrap members were first all ready with a leader. From then on every node starts with QUEEN_KV_INITIAL_CLUSTER_STATE=existing.")
    private String bootstrappedAt;

    @JsonPropertyDescription("Label selector of the node pods (for the scale subresource).")
    @LabelSelector
    private String selector;

    @JsonPropertyDescription("Node id of the Raft leader, if known.")
    private String leader;

    private List<MemberStatus> members = new ArrayList<>();

    @JsonPropertyDescription("Cluster-wide KV limits in force (committed through the log).")
    private KvSettings settings;

    @JsonPropertyDescription("Log index that put the settings in force.")
    private Long settingsIndex;

    @JsonPropertyDescription("Image every member runs once no roll is pending.")
    private String currentImage;

    @JsonPropertyDescription("Pod-template hash every member runs once no roll is pending.")
    private String podTemplateHash;

    @JsonPropertyDescription("Ordinals of spec.removeMembers already replaced by a new, empty member. An ordinal the spec no longer names is dropped, so naming it again replaces it again.")
    private List<Integer> replacedMembers;

    @JsonPropertyDescription("The step in progress, recorded before acting.")
    private PendingOperation pendingOperation;

    private List<Condition> conditions = new ArrayList<>();

    public Long getObservedGeneration() { return observedGeneration; }
    public void setObservedGeneration(Long observedGeneration) { this.observedGeneration = observedGeneration; }
    public ClusterPhase getPhase() { return phase; }
    public void setPhase(ClusterPhase phase) { this.phase = phase; }
    public Integer getReplicas() { return replicas; }
    public void setReplicas(Integer replicas) { this.replicas = replicas; }
    public Integer getReadyReplicas() { return readyReplicas; }
    public void setReadyReplicas(Integer readyReplicas) { this.readyReplicas = readyReplicas; }
    public Integer getBootstrapReplicas() { return bootstrapReplicas; }
    public void setBootstrapReplicas(Integer bootstrapReplicas) { this.bootstrapReplicas = bootstrapReplicas; }
    public String getBootstrappedAt() { return bootstrappedAt; }
    public void setBootstrappedAt(String bootstrappedAt) { this.bootstrappedAt = bootstrappedAt; }
    public String getSelector() { return selector; }
    public void setSelector(String selector) { this.selector = selector; }
    public String getLeader() { return leader; }
    public void setLeader(String leader) { this.leader = leader; }
    public List<MemberStatus> getMembers() { return members; }
    public void setMembers(List<MemberStatus> members) { this.members = members; }
    public KvSettings getSettings() { return settings; }
    public void setSettings(KvSettings settings) { this.settings = settings; }
    public Long getSettingsIndex() { return settingsIndex; }
    public void setSettingsIndex(Long settingsIndex) { this.settingsIndex = settingsIndex; }
    public String getCurrentImage() { return currentImage; }
    public void setCurrentImage(String currentImage) { this.currentImage = currentImage; }
    public String getPodTemplateHash() { return podTemplateHash; }
    public void setPodTemplateHash(String podTemplateHash) { this.podTemplateHash = podTemplateHash; }
    public List<Integer> getReplacedMembers() { return replacedMembers; }
    public void setReplacedMembers(List<Integer> replacedMembers) { this.replacedMembers = replacedMembers; }
    public PendingOperation getPendingOperation() { return pendingOperation; }
    public void setPendingOperation(PendingOperation pendingOperation) { this.pendingOperation = pendingOperation; }
    public List<Condition> getConditions() { return conditions; }
    public void setConditions(List<Condition> conditions) { this.conditions = conditions; }
}
