package io.queenkv.operator.model;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.queenkv.operator.crd.QueenKvCluster;

/** The two Services of a cluster. */
public final class ServiceModel {
    private ServiceModel() {}

    /**
     * {@code <c>-peers}: headless, publishing not-ready addresses, so every pod has its DNS name
     * ({@code <c>-<i>.<c>-peers.<ns>.svc}) from the start: a group cannot form (nor a new node
     * be added) if peers must be ready before they can find each other.
     */
    public static Service peers(QueenKvCluster c) {
        return new ServiceBuilder()
                .withMetadata(Model.metadata(c, Names.peersService(Model.name(c))))
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .withSelector(Labels.selector(Model.name(c)))
                .withPorts(port(Model.HTTP_PORT_NAME, Model.HTTP_PORT), port(Model.RAFT_PORT_NAME, Model.RAFT_PORT))
                .endSpec()
                .build();
    }

    /** {@code <c>}: the ClusterIP Service applications call; only ready nodes get traffic. */
    public static Service client(QueenKvCluster c) {
        return new ServiceBuilder()
                .withMetadata(Model.metadata(c, Names.clientService(Model.name(c))))
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(Labels.selector(Model.name(c)))
                .withPorts(port(Model.HTTP_PORT_NAME, Model.HTTP_PORT))
                .endSpec()
                .build();
    }

    private static ServicePort port(String name, int port) {
        return new ServicePortBuilder().withName(name).withProtocol("TCP").withPort(port)
                .withTargetPort(new IntOrString(name)).build();
    }
}
