package io.queenkv.operator;

import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * Writes the TLS Secrets of {@link TlsMaterial}, which are not dependent resources ({@link OwnedResources}): the
 * operator may not list or watch Secrets, and a new node Secret holds a freshly generated key, written only when it
 * must be reissued. In production with server-side apply (its own field manager, forcing conflicts:
 * these fields are the operator's). Against Fabric8's mock API server, which has no apply, by create-or-update,
 * writing only when the live object does not already hold every desired field, so an unchanged resource is never
 * rewritten (no events, no hot loop).
 */
final class ResourceApplier {
    static final String FIELD_MANAGER = "queen-kv-operator";

    private final KubernetesClient client;
    private final boolean serverSideApply;

    ResourceApplier(KubernetesClient client, boolean serverSideApply) {
        this.client = client;
        this.serverSideApply = serverSideApply;
    }

    /** Applies {@code desired}; answers whether anything was written (always true with server-side apply). */
    boolean apply(HasMetadata desired) {
        if (serverSideApply) {
            client.resource(desired).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
            return true;
        }
        HasMetadata live = client.resource(desired).get();
        if (live == null) {
            client.resource(desired).create();
            return true;
        }
        if (holds(live, desired)) return false;
        desired.getMetadata().setResourceVersion(live.getMetadata().getResourceVersion());
        client.resource(desired).update();
        return true;
    }

    /** Whether {@code live} already has every label, annotation, owner reference, spec and data field of {@code desired}. */
    static boolean holds(HasMetadata live, HasMetadata desired) {
        JsonNode l = Serialization.jsonMapper().valueToTree(live);
        JsonNode d = Serialization.jsonMapper().valueToTree(desired);
        for (String meta : new String[] {"labels", "annotations", "ownerReferences"})
            if (!contains(l.path("metadata").path(meta), d.path("metadata").path(meta))) return false;
        for (Iterator<Map.Entry<String, JsonNode>> it = d.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals("metadata") || e.getKey().equals("status") || e.getKey().equals("apiVersion") || e.getKey().equals("kind"))
                continue;
            if (!contains(l.path(e.getKey()), e.getValue())) return false;
        }
        return true;
    }

    /** Every field of {@code want} is in {@code have} with the same value (arrays element by element, same length). */
    static boolean contains(JsonNode have, JsonNode want) {
        if (want == null || want.isMissingNode() || want.isNull()) return true;
        if (want.isObject()) {
            if (!have.isObject()) return want.isEmpty();
            for (Iterator<Map.Entry<String, JsonNode>> it = want.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!contains(have.path(e.getKey()), e.getValue())) return false;
            }
            return true;
        }
        if (want.isArray()) {
            if (!have.isArray()) return want.isEmpty();
            if (have.size() != want.size()) return false;
            for (int i = 0; i < want.size(); i++) if (!contains(have.get(i), want.get(i))) return false;
            return true;
        }
        if (want.isNumber() && have.isNumber()) return want.decimalValue().compareTo(have.decimalValue()) == 0;
        return want.equals(have);
    }
}
