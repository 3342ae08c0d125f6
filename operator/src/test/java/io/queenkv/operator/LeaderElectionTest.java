package io.queenkv.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;

/**
 * Two operator replicas against one mock API server: only the holder of the Lease reconciles, and the
 * other takes over once the holder is gone.
 */
@EnableKubernetesMockClient(crud = true)
class LeaderElectionTest {
    static final String NS = "prod";

    KubernetesClient client;
    KubernetesMockServer server;
    final List<Operator> operators = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        for (Operator o : operators) o.stop();
    }

    @Test
    void theReplicasCompeteForOneLeaseAndALoserExits() {
        LeaderElectionConfiguration defaults = OperatorMain.leaderElection(null, " ");
        assertThat(defaults.getLeaseName()).isEqualTo(OperatorMain.DEFAULT_LEASE_NAME);
        assertThat(defaults.getLeaseNamespace()).isEmpty();
        assertThat(defaults.isExitOnStopLeading()).isTrue();
        LeaderElectionConfiguration chart = OperatorMain.leaderElection("qkv-operator", "queen-kv-system");
        assertThat(chart.getLeaseName()).isEqualTo("qkv-operator");
        assertThat(chart.getLeaseNamespace()).contains("queen-kv-system");
    }

    @Test
    void onlyTheLeaseHolderReconcilesAndTheOtherTakesOver() throws Exception {
        // The mock has no authorizer: answer JOSDK's access check with the chart's Lease rules.
        server.expect().post().withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
                .andReturn(201, new SelfSubjectRulesReviewBuilder().withNewStatus().withIncomplete(false)
                        .addNewResourceRule().withApiGroups("coordination.k8s.io").withResources("leases")
                        .withVerbs("get", "create", "update").endResourceRule().endStatus().build())
                .always();
        client.apiextensions().v1().customResourceDefinitions().load(QueenKvReconcilerTest.crd().toFile()).create();
        FakeNodeAdmin nodes = new FakeNodeAdmin(new CopyOnWriteArrayList<>());
        QueenKvReconciler first = new QueenKvReconciler(nodes);
        QueenKvReconciler second = new QueenKvReconciler(nodes);
        Operator a = start(first, "replica-a");
        await().atMost(Duration.ofSeconds(20)).until(() -> "replica-a".equals(holder()));
        Operator b = start(second, "replica-b");

        create();
        await().atMost(Duration.ofSeconds(20)).until(() -> first.reconcileCount() > 0);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> second.reconcileCount() == 0);

        a.stop();
        operators.remove(a);
        await().atMost(Duration.ofSeconds(20)).until(() -> "replica-b".equals(holder()) && second.reconcileCount() > 0);
        assertThat(b).isNotNull();
    }

    /** An operator as {@link OperatorMain} builds it, with short lease times and no exit (the JVM is the test's). */
    private Operator start(QueenKvReconciler reconciler, String identity) {
        LeaderElectionConfiguration production = OperatorMain.leaderElection(null, NS);
        LeaderElectionConfiguration election = new LeaderElectionConfiguration(production.getLeaseName(),
                production.getLeaseNamespace().orElseThrow(), Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMillis(200),
                identity, null, false);
        Operator o = new Operator(c -> OperatorMain.configure(c, client)
                .withSSABasedCreateUpdateMatchForDependentResources(false)
                .withUseSSAToPatchPrimaryResource(false)
                .withCloseClientOnStop(false)
                .withLeaderElectionConfiguration(election));
        o.register(reconciler, c -> c.settingNamespaces(NS));
        o.start();
        operators.add(o);
        return o;
    }

    private String holder() {
        Lease l = client.leases().inNamespace(NS).withName(OperatorMain.DEFAULT_LEASE_NAME).get();
        return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
    }

    private void create() {
        QueenKvCluster c = new QueenKvCluster();
        c.setMetadata(new ObjectMetaBuilder().withName("kv").withNamespace(NS).build());
        QueenKvClusterSpec spec = new QueenKvClusterSpec();
        spec.setReplicas(3);
        spec.setImage(Fixtures.IMAGE);
        c.setSpec(spec);
        client.resources(QueenKvCluster.class).inNamespace(NS).resource(c).create();
    }
}
