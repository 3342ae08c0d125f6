package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Required;

/**
 * TLS material for the nodes: a Secret (e.g. of type kubernetes.io/tls) mounted read-only at
 * {@code /etc/queen-kv/tls}. The node itself does not serve TLS yet; the mount is the contract.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TlsSpec {
    @JsonPropertyDescription("Secret with the TLS material (tls.crt, tls.key, ca.crt), mounted read-only at /etc/queen-kv/tls.")
    @Required
    private SecretRef secretRef;

    public TlsSpec() {}

    public TlsSpec(SecretRef secretRef) { this.secretRef = secretRef; }

    public SecretRef getSecretRef() { return secretRef; }
    public void setSecretRef(SecretRef secretRef) { this.secretRef = secretRef; }
}
