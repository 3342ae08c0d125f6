package io.queenkv.operator.model;

import java.util.LinkedHashMap;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.queenkv.operator.crd.QueenKvCluster;

/**
 * {@code <c>-config}: the node configuration shared by every pod (ports, the initial peer list,
 * the cluster id, the data dir, the TLS files, the tokens file, the seed settings) and the bootstrap
 * size, for people and tools to read. The pod template carries the same values as literal env, so a
 * ConfigMap edit restarts nothing; the one value pods read from here is
 * {@code QUEEN_KV_INITIAL_CLUSTER_STATE} (see {@link NodeEnv#initialClusterState}).
 */
public final class ConfigMapModel {
    public static final String BOOTSTRAP_REPLICAS_KEY = "bootstrapReplicas";

    private ConfigMapModel() {}

    public static ConfigMap build(QueenKvCluster c) {
        Map<String, String> data = new LinkedHashMap<>(NodeEnv.common(c));
        data.put(NodeEnv.INITIAL_CLUSTER_STATE, NodeEnv.InitialClusterState.of(c).value());
        data.put(BOOTSTRAP_REPLICAS_KEY, String.valueOf(Model.bootstrapReplicas(c)));
        return new ConfigMapBuilder()
                .withMetadata(Model.metadata(c, Names.configMap(Model.name(c))))
                .withData(data)
                .build();
    }
}
