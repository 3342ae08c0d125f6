package io.queenkv.e2e.operator;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The operator scenarios against a real cluster (kind, k3s, …):
 * {@code -Dqueenkv.e2e.kubeconfig=/path/to/kubeconfig} (or {@code QUEEN_KV_E2E_KUBECONFIG}) and
 * {@code -Dqueenkv.e2e.nodeImage=<image the cluster can pull>} (or {@code QUEEN_KV_E2E_NODE_IMAGE}).
 * The operator runs in the test JVM; it needs rights to create a namespace and apply the CRD.
 * Skips when no kubeconfig is given.
 */
class KubeconfigOperatorE2eTest extends OperatorScenarios {
    @Override
    ClusterUnderTest open() {
        Path kubeconfig = RealCluster.kubeconfig();
        assumeTrue(kubeconfig != null, "no real cluster: set -Dqueenkv.e2e.kubeconfig=/path (or QUEEN_KV_E2E_KUBECONFIG) "
                + "and -Dqueenkv.e2e.nodeImage=<node image the cluster can pull> to run the operator scenarios against it");
        assumeTrue(Files.isRegularFile(kubeconfig), "the kubeconfig " + kubeconfig + " does not exist");
        String image = RealCluster.nodeImageSetting();
        assumeTrue(image != null, "a real cluster needs the node image: set -Dqueenkv.e2e.nodeImage (or QUEEN_KV_E2E_NODE_IMAGE) "
                + "to an image built from docker/node.Dockerfile that the cluster can pull");
        try {
            return RealCluster.fromKubeconfig(kubeconfig, image);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
