package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.ValidationRule;

/**
 * TLS of the nodes (API.md §5): HTTPS on the HTTP port, mutual TLS on the Raft port. The Secret with
 * {@code ca.crt}, {@code tls.crt} and {@code tls.key} is mounted read-only at {@code /etc/queen-kv/tls}.
 * Without {@code mode}, the mode follows from what is set: {@code secretRef} → Secret, {@code issuerRef}
 * → CertManager, neither → Operator; no {@code tls} at all is Operator too (TLS is on by default).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!(has(self.secretRef) && has(self.issuerRef))", message = "tls.secretRef and tls.issuerRef exclude each other")
@ValidationRule(value = "!has(self.mode) || self.mode != 'Secret' || has(self.secretRef)", message = "tls.mode Secret needs tls.secretRef")
@ValidationRule(value = "!has(self.mode) || self.mode != 'CertManager' || has(self.issuerRef)", message = "tls.mode CertManager needs tls.issuerRef")
@ValidationRule(value = "!has(self.mode) || (self.mode != 'Operator' && self.mode != 'Disabled') || (!has(self.secretRef) && !has(self.issuerRef))",
        message = "tls.mode Operator and Disabled take neither tls.secretRef nor tls.issuerRef")
public class TlsSpec {
    @JsonPropertyDescription("Operator (the operator's own cluster CA, the default), CertManager (issuerRef), Secret (secretRef) or Disabled (plaintext). "
            + "Absent: Secret with secretRef, CertManager with issuerRef, Operator otherwise.")
    private TlsMode mode;

    @JsonPropertyDescription("A Secret you provide with tls.crt, tls.key (PKCS#8) and ca.crt; the certificate needs serverAuth and clientAuth "
            + "and the pods' DNS names (*.<name>-peers.<namespace>.svc).")
    private SecretRef secretRef;

    @JsonPropertyDescription("A cert-manager Issuer or ClusterIssuer: the operator creates a Certificate writing the Secret <name>-tls.")
    private IssuerRef issuerRef;

    public TlsSpec() {}

    public TlsSpec(TlsMode mode) { this.mode = mode; }

    public TlsSpec(SecretRef secretRef) { this.secretRef = secretRef; }

    public TlsSpec(IssuerRef issuerRef) { this.issuerRef = issuerRef; }

    public TlsMode getMode() { return mode; }
    public void setMode(TlsMode mode) { this.mode = mode; }
    public SecretRef getSecretRef() { return secretRef; }
    public void setSecretRef(SecretRef secretRef) { this.secretRef = secretRef; }
    public IssuerRef getIssuerRef() { return issuerRef; }
    public void setIssuerRef(IssuerRef issuerRef) { this.issuerRef = issuerRef; }

    /** The mode in force: {@link #getMode()}, or what the set fields imply. */
    @JsonIgnore
    public TlsMode effectiveMode() {
        if (mode != null) return mode;
        if (secretRef != null) return TlsMode.Secret;
        if (issuerRef != null) return TlsMode.CertManager;
        return TlsMode.Operator;
    }
}
