package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;

/** The per-node PersistentVolumeClaim (volumeClaimTemplates are immutable, so this is fixed at creation). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StorageSpec {
    public static final String DEFAULT_SIZE = "1Gi";

    @JsonPropertyDescription("Requested size of each node's volume, a Kubernetes quantity such as 10Gi.")
    @Default(DEFAULT_SIZE)
    @Pattern("^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$")
    @Size(min = 1, max = 32)
    private String size = DEFAULT_SIZE;

    @JsonPropertyDescription("StorageClass of the volumes; absent: the cluster's default class.")
    @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
    @Size(min = 1, max = 253)
    private String storageClassName;

    public StorageSpec() {}

    public StorageSpec(String size, String storageClassName) {
        this.size = size;
        this.storageClassName = storageClassName;
    }

    public String getSize() { return size; }
    public void setSize(String size) { this.size = size; }
    public String getStorageClassName() { return storageClassName; }
    public void setStorageClassName(String storageClassName) { this.storageClassName = storageClassName; }
}
