package io.queenkv.operator.model;

import static io.queenkv.operator.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;

class ServiceModelTest {
    @Test
    void peerServiceIsHeadlessAndPublishesNotReadyPods() {
        Service s = ServiceModel.peers(cluster("kv", "prod", 3));
        assertThat(s.getMetadata().getName()).isEqualTo("kv-peers");
        assertThat(s.getMetadata().getNamespace()).isEqualTo("prod");
        assertThat(s.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(s.getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(s.getSpec().getSelector()).containsExactlyInAnyOrderEntriesOf(Labels.selector("kv"));
        assertThat(s.getSpec().getPorts())
                .extracting(ServicePort::getName, ServicePort::getPort, p -> p.getTargetPort().getStrVal())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("http", 6632, "http"),
                        org.assertj.core.groups.Tuple.tuple("raft", 6634, "raft"));
    }

    @Test
    void clientServiceServesHttpOnly() {
        Service s = ServiceModel.client(cluster("kv", "prod", 3));
        assertThat(s.getMetadata().getName()).isEqualTo("kv");
        assertThat(s.getSpec().getType()).isEqualTo("ClusterIP");
        assertThat(s.getSpec().getClusterIP()).isNull();
        assertThat(s.getSpec().getPublishNotReadyAddresses()).isNull();
        assertThat(s.getSpec().getSelector()).containsExactlyInAnyOrderEntriesOf(Labels.selector("kv"));
        assertThat(s.getSpec().getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getName()).isEqualTo("http");
            assertThat(p.getPort()).isEqualTo(6632);
            assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
        });
    }
}
