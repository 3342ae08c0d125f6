package io.queenkv.operator;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.plan.Observed;

/**
 * Plays the StatefulSet controller and the kubelet, minimally, for the mock API server (where nothing
 * runs pods): every 50 ms it makes pods {@code 0..replicas-1} exist from the StatefulSet's current
 * template (with their data claim), deletes pods above (and their claims under {@code whenScaled: Delete}), starts and stops the {@link FakeNodeAdmin}'s node
 * processes with their pods, and sets each pod's Ready condition from the node's readiness (the
 * readiness probe) unless the test holds it not ready.
 */
final class PodSimulator implements AutoCloseable {
    private final KubernetesClient client;
    private final String namespace;
    private final FakeNodeAdmin nodes;
    private final List<String> events;
    private final Set<String> forcedNotReady = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Pod name → uid of the pod whose process runs. */
    private final Map<String, String> running = new HashMap<>();
    private final Thread thread;
    private volatile boolean stopped;

    PodSimulator(KubernetesClient client, String namespace, FakeNodeAdmin nodes, List<String> events) {
        this.client = client;
        this.namespace = namespace;
        this.nodes = nodes;
        this.events = events;
        this.thread = new Thread(this::loop, "pod-simulator");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Evicted pods, deleted by the next round (the API server's eviction subresource, which the mock lacks). */
    private final Set<String> evicted = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean refuseEvictions;

    /**
     * A POST to a pod's {@code eviction} subresource: false (429) while {@link #refuseEvictions} holds, as a
     * PodDisruptionBudget with no disruption left would answer; otherwise the pod is deleted.
     */
    boolean evict(String pod) {
        if (refuseEvictions) {
            events.add("eviction refused " + pod);
            return false;
        }
        events.add("evicted " + pod);
        evicted.add(pod);
        return true;
    }

    /** Images whose container exits at once: their pods crash-loop, their node never starts. */
    private final Set<String> brokenImages = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Pods that stay Pending (unschedulable) once created. */
    private final Set<String> unschedulable = java.util.concurrent.ConcurrentHashMap.newKeySet();

    void breakImage(String image) {
        brokenImages.add(image);
    }

    void unschedulable(String pod) {
        unschedulable.add(pod);
    }

    void refuseEvictions(boolean refuse) {
        refuseEvictions = refuse;
    }

    /** Holds a pod's Ready condition false (as a failing readiness probe would). */
    void holdNotReady(String pod, boolean hold) {
        if (hold) forcedNotReady.add(pod);
        else forcedNotReady.remove(pod);
    }

    private void loop() {
        while (!stopped) {
            try {
                step();
            } catch (KubernetesClientException e) {
                // a conflict with the operator or the test; the next round sees the new state
            } catch (RuntimeException e) {
                if (!stopped) e.printStackTrace();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private synchronized void step() {
        for (String pod : List.copyOf(evicted)) {
            client.pods().inNamespace(namespace).withName(pod).delete();
            evicted.remove(pod);
        }
        for (StatefulSet sts : client.apps().statefulSets().inNamespace(namespace).list().getItems()) {
            String name = sts.getMetadata().getName();
            int replicas = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
            Map<Integer, Pod> pods = new HashMap<>();
            for (Pod p : client.pods().inNamespace(namespace).list().getItems()) {
                int ordinal = Observed.podOrdinal(name, p.getMetadata().getName());
                if (ordinal >= 0) pods.put(ordinal, p);
            }
            // A pod deleted by someone else (the operator rolling it): its process stops.
            for (String podName : new HashSet<>(running.keySet())) {
                int ordinal = Observed.podOrdinal(name, podName);
                if (ordinal < 0) continue;
                Pod p = pods.get(ordinal);
                if (p == null || !p.getMetadata().getUid().equals(running.get(podName))) {
                    running.remove(podName);
                    nodes.stop(ordinal);
                    events.add("pod gone " + podName);
                }
            }
            for (int i = 0; i < replicas; i++) if (!pods.containsKey(i)) pods.put(i, create(sts, i));
            for (Map.Entry<Integer, Pod> e : pods.entrySet()) {
                Pod p = e.getValue();
                String podName = p.getMetadata().getName();
                if (e.getKey() >= replicas) {
                    client.pods().inNamespace(namespace).withName(podName).delete();
                    if (running.remove(podName) != null) nodes.stop(e.getKey());
                    events.add("scaled down pod " + podName);
                    // As the StatefulSet controller: whenScaled Delete takes the claim with the pod.
                    var retention = sts.getSpec().getPersistentVolumeClaimRetentionPolicy();
                    if (retention != null && "Delete".equals(retention.getWhenScaled())) {
                        client.persistentVolumeClaims().inNamespace(namespace).withName(Model.DATA_VOLUME + "-" + podName).delete();
                        events.add("claim deleted with the pod " + Model.DATA_VOLUME + "-" + podName);
                    }
                    continue;
                }
                boolean ready = nodes.ready(null, e.getKey()) && !forcedNotReady.contains(podName);
                if (ready != Observed.podReady(p)) setReady(podName, ready);
            }
        }
    }

    private Pod create(StatefulSet sts, int ordinal) {
        String name = sts.getMetadata().getName();
        String podName = name + "-" + ordinal;
        String claim = Model.DATA_VOLUME + "-" + podName;
        if (client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get() == null) {
            PersistentVolumeClaim template = sts.getSpec().getVolumeClaimTemplates().get(0);
            client.persistentVolumeClaims().inNamespace(namespace).resource(new PersistentVolumeClaimBuilder()
                    .withNewMetadata().withName(claim).withNamespace(namespace).withLabels(template.getMetadata().getLabels()).endMetadata()
                    .withSpec(template.getSpec()).build()).create();
        }
        var template = sts.getSpec().getTemplate();
        Map<String, String> labels = new LinkedHashMap<>(template.getMetadata().getLabels());
        labels.put("statefulset.kubernetes.io/pod-name", podName);
        boolean pending = unschedulable.contains(podName);
        boolean crashing = brokenImages.contains(template.getSpec().getContainers().get(0).getImage());
        if (pending || crashing) {
            client.pods().inNamespace(namespace).resource(new PodBuilder()
                    .withNewMetadata().withName(podName).withNamespace(namespace).withLabels(labels)
                    .withAnnotations(template.getMetadata().getAnnotations()).endMetadata()
                    .withSpec(template.getSpec())
                    .withNewStatus().withPhase(pending ? "Pending" : "Running").withConditions(condition(false))
                    .addAllToContainerStatuses(pending ? List.of() : List.of(new io.fabric8.kubernetes.api.model.ContainerStatusBuilder()
                            .withName(template.getSpec().getContainers().get(0).getName()).withReady(false).withRestartCount(3)
                            .withNewState().withNewWaiting().withReason("CrashLoopBackOff").endWaiting().endState().build()))
                    .endStatus()
                    .build()).create();
            events.add((pending ? "pending pod " : "crash-looping pod ") + podName);
            return client.pods().inNamespace(namespace).withName(podName).get();
        }
        Pod pod = client.pods().inNamespace(namespace).resource(new PodBuilder()
                .withNewMetadata().withName(podName).withNamespace(namespace).withLabels(labels)
                .withAnnotations(template.getMetadata().getAnnotations())
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("StatefulSet").withName(name)
                        .withUid(sts.getMetadata().getUid()).withController(true).build())
                .endMetadata()
                .withSpec(template.getSpec())
                .withNewStatus().withPhase("Running").withConditions(condition(false)).endStatus()
                .build()).create();
        String peers = template.getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> "QUEEN_KV_PEERS".equals(e.getName())).map(EnvVar::getValue).findFirst().orElse(null);
        running.put(podName, pod.getMetadata().getUid());
        nodes.start(ordinal, peers);
        events.add("created pod " + podName);
        return pod;
    }

    private void setReady(String podName, boolean ready) {
        client.pods().inNamespace(namespace).withName(podName).editStatus(p -> {
            if (p.getStatus() == null) p.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
            p.getStatus().setPhase("Running");
            p.getStatus().setConditions(List.of(condition(ready)));
            return p;
        });
    }

    private static PodCondition condition(boolean ready) {
        return new PodConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False").build();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(5000);
    }
}
