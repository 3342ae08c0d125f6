package io.queenkv.operator.model;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queenkv.operator.crd.AuthSpec;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;

/**
 * Decides which spec changes restart pods. The hash covers exactly what a running JVM cannot pick up:
 * {@code image}, {@code jvmOptions}, {@code resources}, {@code env} (as applied, reserved names
 * dropped), {@code podTemplate}, and the mounted Secrets ({@code auth.tokensSecretRef},
 * {@code tls}, fixed after creation). It leaves out {@code replicas} (scaling adds or removes members),
 * {@code settings} (committed through the log, no restart), {@code storage} (immutable) and
 * {@code auth.adminTokenSecretRef} (read by the operator only). The resource's
 * {@link Model#RESTARTED_AT_ANNOTATION} is in it too: a new value is a restart asked for by hand. Null, empty lists/maps and empty
 * objects hash alike, so a defaulted spec read back from the API server hashes as it was written.
 *
 * <p>The StatefulSet's pod template carries the hash in {@link Model#POD_TEMPLATE_HASH_ANNOTATION};
 * a pod whose annotation differs from the desired hash is due a roll.
 */
public final class PodTemplateHash {
    /** Bump when the builders change the pod template in a way that needs running pods restarted. */
    public static final int MODEL_VERSION = 1;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .configure(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY, true)
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
            .build();

    private PodTemplateHash() {}

    /** 16 hex digits of the SHA-256 of the restart-requiring fields. */
    public static String of(QueenKvClusterSpec spec) {
        return of(spec, null);
    }

    /** As {@link #of(QueenKvClusterSpec)}, with the cluster's {@link Model#RESTARTED_AT_ANNOTATION} (a manual restart). */
    public static String of(QueenKvCluster c) {
        return of(Model.spec(c), Model.restartedAt(c));
    }

    private static String of(QueenKvClusterSpec spec, String restartedAt) {
        Map<String, Object> in = new LinkedHashMap<>();
        if (restartedAt != null) in.put("restartedAt", restartedAt); // absent: the hash of a cluster never restarted by hand
        in.put("modelVersion", MODEL_VERSION);
        in.put("image", spec.getImage());
        in.put("jvmOptions", NodeEnv.javaOpts(spec));
        in.put("resources", spec.getResources());
        in.put("env", NodeEnv.userEnv(spec));
        in.put("podTemplate", spec.getPodTemplate());
        if (spec.getAuth() != null && spec.getAuth().getTokensSecretRef() != null) {
            in.put("tokensSecret", spec.getAuth().getTokensSecretRef().getName());
            in.put("tokensKey", spec.getAuth().getTokensSecretRef().keyOr(AuthSpec.DEFAULT_TOKENS_KEY));
        }
        if (spec.getTls() != null) in.put("tls", spec.getTls()); // fixed after creation (the CRD refuses a change)
        if (spec.getRestoreFrom() != null) in.put("restoreFrom", spec.getRestoreFrom()); // absent: the hash of a cluster never restored
        JsonNode tree = prune(MAPPER.valueToTree(in));
        try {
            byte[] canonical = MAPPER.writeValueAsString(MAPPER.treeToValue(tree, Object.class)).getBytes(StandardCharsets.UTF_8);
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical);
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether going from {@code oldSpec} to {@code newSpec} needs the pods restarted (one at a time). */
    public static boolean rollRequired(QueenKvClusterSpec oldSpec, QueenKvClusterSpec newSpec) {
        return !of(oldSpec).equals(of(newSpec));
    }

    /** Drops nulls, empty arrays and empty objects, recursively. */
    private static JsonNode prune(JsonNode n) {
        if (n instanceof ObjectNode o) {
            for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode v = prune(e.getValue());
                if (isEmpty(v)) it.remove();
                else e.setValue(v);
            }
        } else if (n instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) a.set(i, prune(a.get(i)));
        }
        return n;
    }

    private static boolean isEmpty(JsonNode v) {
        return v == null || v.isNull() || v.isMissingNode() || (v.isContainerNode() && v.isEmpty());
    }
}
