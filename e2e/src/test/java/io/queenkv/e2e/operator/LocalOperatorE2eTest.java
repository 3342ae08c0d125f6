package io.queenkv.e2e.operator;

/**
 * The operator scenarios on this machine: Fabric8's mock API server, the real operator in this JVM, and
 * {@link LocalKubelet} running each pod of the StatefulSet as a node process from the built jar.
 * Needs {@code node/target/queen-kv-node.jar} (the e2e pom points {@code queenkv.nodeJar} at it).
 */
class LocalOperatorE2eTest extends OperatorScenarios {
    @Override
    ClusterUnderTest open() {
        return new LocalCluster();
    }
}
