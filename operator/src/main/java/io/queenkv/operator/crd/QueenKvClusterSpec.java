package io.queenkv.operator.crd;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;

/** The desired cluster. Fields that change the pods' template roll them one at a time (see {@code PodTemplateHash}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.storage) == has(oldSelf.storage) && (!has(self.storage) || self.storage == oldSelf.storage)",
        message = "storage cannot be changed after the cluster is created")
// Members with different CAs, or with and without TLS, cannot talk to each other: a roll would split the group.
@ValidationRule(value = "has(self.tls) == has(oldSelf.tls) && (!has(self.tls) || self.tls == oldSelf.tls)",
        message = "tls cannot be changed after the cluster is created")
// A backup seeds a cluster only while it is created: set it at creation, keep it or remove it (a roll), never add or change it.
@ValidationRule(value = "!has(self.restoreFrom) || (has(oldSelf.restoreFrom) && self.restoreFrom == oldSelf.restoreFrom)",
        message = "restoreFrom can only be set when the cluster is created (it may be removed later)")
public class QueenKvClusterSpec {
    public static final int DEFAULT_REPLICAS = 3;
    /** Long enough that a restart, a node drain or a rescheduled pod is waited out, never replaced. */
    public static final String DEFAULT_REPLACE_NOT_SERVING_AFTER = "10m";

    @JsonPropertyDescription("Number of nodes (Raft members): 1, 3, 5 or 7. Changed one node at a time.")
    @Min(1)
    @Max(7)
    @Default("3")
    @ValidationRule(value = "self % 2 == 1", message = "replicas must be odd (1, 3, 5 or 7): an even group tolerates no more failures than the odd one below it")
    @SpecReplicas
    private Integer replicas = DEFAULT_REPLICAS;

    @JsonPropertyDescription("Ordinals of members to replace before any scaling (0 is n0, pod <name>-0): each one that is a member"
            + " below spec.replicas is removed from the group, its claim and pod are deleted, and it comes back as a new, empty member"
            + " that the operator adds back and waits for to catch up; a named ordinal at or above spec.replicas is removed by the"
            + " scale-down. Each is replaced once while named (status.replacedMembers); remove it from the list to be able to name"
            + " it again. A replacement that would leave the group without a quorum of ready members is refused.")
    @Size(max = 7)
    @ValidationRule(value = "self.all(k, k >= 0 && k <= 6)", message = "removeMembers holds member ordinals, 0 to 6")
    private List<Integer> removeMembers;

    @JsonPropertyDescription("During a scale-down, a member that stays (an ordinal below spec.replicas) and has not been ready for"
            + " this long (status.members[].notReadySince) is replaced as spec.removeMembers would replace it (removed from the group"
            + " only while the others hold a quorum of ready members, its claim and pod deleted, a new, empty member added back and"
            + " caught up), one member at a time, before the highest ordinals are removed; until then the scale-down waits for it."
            + " A duration in hours, minutes and seconds (90s, 10m, 1h30m); 0 turns it off (the scale-down waits for the member or"
            + " for spec.removeMembers). Outside a scale-down no member is replaced unless named.")
    @Default(DEFAULT_REPLACE_NOT_SERVING_AFTER)
    @Pattern(SpecDuration.PATTERN)
    private String replaceNotServingAfter = DEFAULT_REPLACE_NOT_SERVING_AFTER;

    @JsonPropertyDescription("Container image of the node (runs /app/queen-kv-node.jar). Changing it rolls the pods.")
    @Required
    @Pattern("^\\S+$")
    @Size(min = 1, max = 512)
    private String image;

    @JsonPropertyDescription("CPU and memory of each node's container. Changing it rolls the pods.")
    private ResourceRequirements resources;

    @JsonPropertyDescription("Each node's persistent volume (Raft log and snapshots). Fixed at creation.")
    private StorageSpec storage;

    @JsonPropertyDescription("Cluster-wide KV limits. Committed through the Raft log: no restart, every node switches at the same index.")
    private KvSettings settings;

    @JsonPropertyDescription("Extra JVM options, appended to the defaults (-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError). Changing them rolls the pods.")
    @Size(max = 64)
    private List<String> jvmOptions = new ArrayList<>();

    @JsonPropertyDescription("Extra environment variables of the node container (e.g. QUEEN_KV_SNAPSHOT_EVERY). Variables the operator sets itself are ignored here. Changing them rolls the pods.")
    @Size(max = 64)
    private List<EnvVar> env = new ArrayList<>();

    @JsonPropertyDescription("Scheduling and metadata overrides of the node pods. Changing them rolls the pods.")
    private PodTemplateOverrides podTemplate;

    @JsonPropertyDescription("Bearer-token access. Absent: auth off, every call is the default tenant.")
    private AuthSpec auth;

    @JsonPropertyDescription("TLS of the nodes: HTTPS and mutual-TLS Raft. Absent: on, with a cluster CA the operator keeps (mode Operator). Fixed at creation.")
    private TlsSpec tls;

    @JsonPropertyDescription("Scheduled backups to the claim <name>-backups, kept when the cluster is deleted. Absent: none (the CronJob is deleted, the claim kept).")
    private BackupSpec backup;

    @JsonPropertyDescription("Create the cluster from a backup file on a claim. Only at creation; removing it later rolls the pods.")
    private RestoreSpec restoreFrom;

    public Integer getReplicas() { return replicas; }
    public void setReplicas(Integer replicas) { this.replicas = replicas; }
    public List<Integer> getRemoveMembers() { return removeMembers; }
    public void setRemoveMembers(List<Integer> removeMembers) { this.removeMembers = removeMembers; }
    public String getReplaceNotServingAfter() { return replaceNotServingAfter; }
    public void setReplaceNotServingAfter(String replaceNotServingAfter) { this.replaceNotServingAfter = replaceNotServingAfter; }
    public String getImage() { return image; }
    public void setImage(String image) { this.image = image; }
    public ResourceRequirements getResources() { return resources; }
    public void setResources(ResourceRequirements resources) { this.resources = resources; }
    public StorageSpec getStorage() { return storage; }
    public void setStorage(StorageSpec storage) { this.storage = storage; }
    public KvSettings getSettings() { return settings; }
    public void setSettings(KvSettings settings) { this.settings = settings; }
    public List<String> getJvmOptions() { return jvmOptions; }
    public void setJvmOptions(List<String> jvmOptions) { this.jvmOptions = jvmOptions; }
    public List<EnvVar> getEnv() { return env; }
    public void setEnv(List<EnvVar> env) { this.env = env; }
    public PodTemplateOverrides getPodTemplate() { return podTemplate; }
    public void setPodTemplate(PodTemplateOverrides podTemplate) { this.podTemplate = podTemplate; }
    public AuthSpec getAuth() { return auth; }
    public void setAuth(AuthSpec auth) { this.auth = auth; }
    public TlsSpec getTls() { return tls; }
    public void setTls(TlsSpec tls) { this.tls = tls; }
    public BackupSpec getBackup() { return backup; }
    public void setBackup(BackupSpec backup) { this.backup = backup; }
    public RestoreSpec getRestoreFrom() { return restoreFrom; }
    public void setRestoreFrom(RestoreSpec restoreFrom) { this.restoreFrom = restoreFrom; }
}
