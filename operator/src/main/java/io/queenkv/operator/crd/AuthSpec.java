package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Required;

/**
 * Bearer-token access (API.md §3). The tokens file (SHA-256 of each token, tenant, role) is mounted
 * into every node; the operator calls the admin API with the token in {@code adminTokenSecretRef},
 * whose SHA-256 must be in the tokens file with the {@code admin} role.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AuthSpec {
    public static final String DEFAULT_TOKENS_KEY = "tokens";
    public static final String DEFAULT_ADMIN_TOKEN_KEY = "token";

    @JsonPropertyDescription("Secret holding the node's tokens file (key defaults to \"tokens\"). Mounted read-only; sets QUEEN_KV_TOKENS_FILE.")
    @Required
    private SecretKeyRef tokensSecretRef;

    @JsonPropertyDescription("Secret holding the plain bearer token the operator uses for admin calls (key defaults to \"token\"); its SHA-256 must be in the tokens file with the admin role.")
    @Required
    private SecretKeyRef adminTokenSecretRef;

    public AuthSpec() {}

    public AuthSpec(SecretKeyRef tokensSecretRef, SecretKeyRef adminTokenSecretRef) {
        this.tokensSecretRef = tokensSecretRef;
        this.adminTokenSecretRef = adminTokenSecretRef;
    }

    public SecretKeyRef getTokensSecretRef() { return tokensSecretRef; }
    public void setTokensSecretRef(SecretKeyRef tokensSecretRef) { this.tokensSecretRef = tokensSecretRef; }
    public SecretKeyRef getAdminTokenSecretRef() { return adminTokenSecretRef; }
    public void setAdminTokenSecretRef(SecretKeyRef adminTokenSecretRef) { this.adminTokenSecretRef = adminTokenSecretRef; }
}
