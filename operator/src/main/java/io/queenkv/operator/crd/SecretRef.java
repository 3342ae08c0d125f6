package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A Secret in the cluster's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecretRef {
    @JsonPropertyDescription("Name of the Secret, in the QueenKvCluster's namespace.")
    @Required
    @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
    @Size(min = 1, max = 253)
    private String name;

    public SecretRef() {}

    public SecretRef(String name) { this.name = name; }

    public String getName() { return name; }
    public void setName(String name) { this.name = name; }
}
