package io.queenkv.operator.crd;

/** Where the nodes' TLS material comes from (see {@link TlsSpec}). */
public enum TlsMode {
    /** The operator keeps a cluster CA of its own and issues the node certificate from it (the default). */
    Operator,
    /** cert-manager issues the node certificate from {@code issuerRef}. */
    CertManager,
    /** The user provides the Secret in {@code secretRef}. */
    Secret,
    /** Plaintext HTTP and Raft. */
    Disabled
}
