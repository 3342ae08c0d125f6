package io.queenkv.operator.crd;

import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.queenkv.operator.model.ConfigMapModel;
import io.queenkv.operator.model.PodDisruptionBudgetModel;
import io.queenkv.operator.model.ServiceModel;
import io.queenkv.operator.model.StatefulSetModel;
import io.queenkv.operator.model.Model;

/**
 * The custom resource and the model's resources round-trip through Fabric8's mock API server in CRUD
 * mode (what the reconciler's tests will run against), with the JDK HTTP client as the only factory.
 */
@EnableKubernetesMockClient(crud = true)
class MockApiServerTest {
    KubernetesClient client;

    @Test
    void jdkHttpClientIsTheOnlyFactory() {
        assertThat(client.getHttpClient().getClass().getName()).startsWith("io.fabric8.kubernetes.client.jdkhttp.");
    }

    @Test
    void customResourceAndOwnedResourcesRoundTrip() {
        client.apiextensions().v1().customResourceDefinitions()
                .load(CrdUpToDateTest.generated().toFile()).create();
        QueenKvCluster c = cluster("kv", "prod", 3);
        c.getSpec().setSettings(new KvSettings().maxValueBytes(4096));
        c.getMetadata().setUid(null);
        QueenKvCluster created = client.resources(QueenKvCluster.class).inNamespace("prod").resource(c).create();
        assertThat(created.getMetadata().getUid()).isNotBlank();
        assertThat(created.getSpec().getSettings().getMaxValueBytes()).isEqualTo(4096);

        QueenKvClusterStatus status = new QueenKvClusterStatus();
        status.setBootstrapReplicas(3);
        status.setPhase(ClusterPhase.Creating);
        status.setPendingOperation(new PendingOperation(OperationType.ScaleUp, "n3", 3, "2026-11-30T10:00:00Z"));
        created.setStatus(status);
        QueenKvCluster withStatus = client.resources(QueenKvCluster.class).inNamespace("prod").resource(created).updateStatus();
        assertThat(withStatus.getStatus().getPendingOperation().getType()).isEqualTo(OperationType.ScaleUp);

        for (HasMetadata r : java.util.List.of(ConfigMapModel.build(withStatus), ServiceModel.peers(withStatus), ServiceModel.client(withStatus),
                StatefulSetModel.build(withStatus), PodDisruptionBudgetModel.build(withStatus)))
            client.resource(r).create();
        StatefulSet sts = client.apps().statefulSets().inNamespace("prod").withName("kv").get();
        assertThat(sts.getSpec().getTemplate().getMetadata().getAnnotations()).containsKey(Model.POD_TEMPLATE_HASH_ANNOTATION);
        assertThat(sts.getMetadata().getOwnerReferences().get(0).getUid()).isEqualTo(created.getMetadata().getUid());
        assertThat(client.services().inNamespace("prod").list().getItems()).hasSize(2);
        assertThat(client.policy().v1().podDisruptionBudget().inNamespace("prod").withName("kv").get()).isNotNull();
        assertThat(Serialization.asYaml(withStatus)).contains("kind: \"QueenKvCluster\"");
    }
}
