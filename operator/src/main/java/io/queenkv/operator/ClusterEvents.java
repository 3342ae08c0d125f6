package io.queenkv.operator;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.model.Model;

/**
 * Kubernetes Events on a {@code QueenKvCluster}, one for each step the reconciler takes and each
 * refusal ({@code kubectl describe qkv} and {@code kubectl events} show them). The same event twice in
 * a row for a resource is sent once (a refusal repeats on every reconcile); an event that cannot be
 * sent is logged and never fails the reconcile.
 */
final class ClusterEvents {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterEvents.class);
    static final String COMPONENT = "queen-kv-operator";

    enum Type { Normal, Warning }

    private final Clock clock;
    /** Per resource uid: the last event sent (type, reason and message). */
    private final Map<String, String> last = new ConcurrentHashMap<>();

    ClusterEvents(Clock clock) {
        this.clock = clock;
    }

    void record(KubernetesClient client, QueenKvCluster c, Type type, String reason, String message) {
        String uid = c.getMetadata().getUid();
        String key = type + " " + reason + " " + message;
        if (uid == null || key.equals(last.put(uid, key))) return;
        String now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        try {
            client.v1().events().inNamespace(Model.namespace(c)).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(Model.name(c) + ".").withNamespace(Model.namespace(c)).endMetadata()
                    .withNewInvolvedObject().withApiVersion(c.getApiVersion()).withKind(c.getKind()).withName(Model.name(c))
                    .withNamespace(Model.namespace(c)).withUid(uid).withResourceVersion(c.getMetadata().getResourceVersion()).endInvolvedObject()
                    .withType(type.name()).withReason(reason).withMessage(message)
                    .withNewSource().withComponent(COMPONENT).endSource()
                    .withReportingComponent(COMPONENT).withReportingInstance(COMPONENT)
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.warn("{}/{}: could not record the event {} {}: {}", Model.namespace(c), Model.name(c), reason, message, e.getMessage());
        }
    }
}
