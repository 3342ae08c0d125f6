package io.queenkv.operator.model;

import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.QueenKvCluster;

class ConfigMapModelTest {
    @Test
    void holdsTheSharedNodeConfigurationAndTheBootstrapSize() {
        QueenKvCluster c = cluster("kv", "prod", 3);
        c.getSpec().setSettings(new KvSettings().maxValueBytes(32768));
        ConfigMap cm = ConfigMapModel.build(c);
        assertThat(cm.getMetadata().getName()).isEqualTo("kv-config");
        assertThat(cm.getData())
                .containsEntry("QUEEN_KV_PEERS", Peers.initialPeers(c))
                .containsEntry("QUEEN_KV_HTTP_PORT", "6632")
                .containsEntry("QUEEN_KV_RAFT_PORT", "6634")
                .containsEntry("QUEEN_KV_DATA_DIR", "/data")
                .containsEntry("QUEEN_KV_MAX_VALUE_BYTES", "32768")
                .containsEntry("bootstrapReplicas", "3")
                .doesNotContainKeys("QUEEN_KV_TOKENS_FILE", "QUEEN_KV_MAX_OPS_PER_CALL");
    }
}
