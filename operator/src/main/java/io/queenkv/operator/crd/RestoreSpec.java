package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * The backup a new cluster is created from. Every node pod mounts the claim read-only and starts with
 * {@code QUEEN_KV_RESTORE_FROM} pointing at the file; a node uses it only while it creates the cluster
 * (README "Backup and restore"), so it stays harmless afterwards.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!self.path.contains('..')", message = "path must stay inside the claim (no '..')")
public class RestoreSpec {
    @JsonPropertyDescription("PersistentVolumeClaim in the cluster's namespace that holds the backup file; every node pod mounts it read-only,"
            + " so its access mode must allow that (ReadOnlyMany or ReadWriteMany when the pods land on several nodes). spec.backup's claim is <name>-backups.")
    @Required
    @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
    @Size(min = 1, max = 253)
    private String claimName;

    @JsonPropertyDescription("The backup file's path inside the claim, e.g. kv-20261201T030000.000000000Z.backup (what GET /api/v1/admin/backup wrote).")
    @Required
    @Pattern("^[A-Za-z0-9._-][A-Za-z0-9._/-]*$")
    @Size(min = 1, max = 1024)
    private String path;

    public RestoreSpec() {}

    public RestoreSpec(String claimName, String path) {
        this.claimName = claimName;
        this.path = path;
    }

    public String getClaimName() { return claimName; }
    public void setClaimName(String claimName) { this.claimName = claimName; }
    public String getPath() { return path; }
    public void setPath(String path) { this.path = path; }
}
