package io.queenkv.operator;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;

/** QueenKvClusters for tests. */
public final class Fixtures {
    public static final String IMAGE = "ghcr.io/queenkv/node:0.1.0";
    public static final String UID = "5f1f4c2e-0000-4000-8000-00000000beef";

    private Fixtures() {}

    public static QueenKvCluster cluster(String name, String namespace, int replicas) {
        QueenKvCluster c = new QueenKvCluster();
        c.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).withUid(UID).withGeneration(1L).build());
        QueenKvClusterSpec spec = new QueenKvClusterSpec();
        spec.setReplicas(replicas);
        spec.setImage(IMAGE);
        c.setSpec(spec);
        return c;
    }

    public static QueenKvCluster cluster(int replicas) {
        return cluster("kv", "prod", replicas);
    }
}
