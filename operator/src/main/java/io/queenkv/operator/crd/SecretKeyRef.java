package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A key of a Secret in the cluster's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecretKeyRef {
    @JsonPropertyDescription("Name of the Secret, in the QueenKvCluster's namespace.")
    @Required
    @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
    @Size(min = 1, max = 253)
    private String name;

    @JsonPropertyDescription("Key in the Secret; absent: the field's default key.")
    @Pattern("^[-._a-zA-Z0-9]+$")
    @Size(min = 1, max = 253)
    private String key;

    public SecretKeyRef() {}

    public SecretKeyRef(String name, String key) {
        this.name = name;
        this.key = key;
    }

    public String getName() { return name; }
    public void setName(String name) { this.name = name; }
    public String getKey() { return key; }
    public void setKey(String key) { this.key = key; }

    /** The key, or {@code fallback} when none is given. */
    public String keyOr(String fallback) {
        return key == null || key.isBlank() ? fallback : key;
    }
}
