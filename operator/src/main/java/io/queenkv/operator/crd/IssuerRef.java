package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A cert-manager issuer (group {@code cert-manager.io}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class IssuerRef {
    /** The kinds of cert-manager issuer a Certificate can name. */
    public enum Kind { Issuer, ClusterIssuer }

    @JsonPropertyDescription("Name of the Issuer (in the QueenKvCluster's namespace) or ClusterIssuer.")
    @Required
    @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
    @Size(min = 1, max = 253)
    private String name;

    @JsonPropertyDescription("Issuer (namespaced, the default) or ClusterIssuer.")
    @Default("Issuer")
    private Kind kind = Kind.Issuer;

    public IssuerRef() {}

    public IssuerRef(String name, Kind kind) {
        this.name = name;
        this.kind = kind;
    }

    public String getName() { return name; }
    public void setName(String name) { this.name = name; }
    public Kind getKind() { return kind; }
    public void setKind(Kind kind) { this.kind = kind; }

    /** {@link #getKind()}, {@code Issuer} when unset. */
    public Kind kindOrDefault() { return kind == null ? Kind.Issuer : kind; }
}
