package io.queenkv.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A Queen KV cluster: a StatefulSet of nodes forming one Raft group, reconciled by the operator.
 * {@code kubectl get qkv} shows readiness, the desired size, the leader and the phase.
 */
@Group(QueenKvCluster.GROUP)
@Version(QueenKvCluster.VERSION)
@Kind(QueenKvCluster.KIND)
@Plural(QueenKvCluster.PLURAL)
@Singular("queenkvcluster")
@ShortNames("qkv")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.readyReplicas", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "Pods whose node is a ready member of the group")
@AdditionalPrinterColumn(name = "Replicas", jsonPath = ".spec.replicas", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "Desired number of nodes")
@AdditionalPrinterColumn(name = "Leader", jsonPath = ".status.leader", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Node id of the Raft leader")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "What the operator is doing")
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(value = "has(self.spec)", message = "spec is required (at least spec.image)")
@ValidationRule(value = "self.metadata.name.size() <= " + QueenKvCluster.MAX_NAME_LENGTH,
        message = "metadata.name must be at most " + QueenKvCluster.MAX_NAME_LENGTH
                + " characters (it prefixes pod, service and volume claim names)")
public class QueenKvCluster extends CustomResource<QueenKvClusterSpec, QueenKvClusterStatus> implements Namespaced {
    public static final String GROUP = "queenkv.io";
    public static final String VERSION = "v1alpha1";
    public static final String KIND = "QueenKvCluster";
    public static final String PLURAL = "queenkvclusters";
    public static final String API_VERSION = GROUP + "/" + VERSION;
    /** Keeps {@code <name>-peers}, pod host names and the StatefulSet's revision label within 63 characters. */
    public static final int MAX_NAME_LENGTH = 40;

    @Override
    protected QueenKvClusterSpec initSpec() {
        return new QueenKvClusterSpec();
    }
}
