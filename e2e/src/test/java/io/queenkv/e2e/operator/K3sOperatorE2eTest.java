package io.queenkv.e2e.operator;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * The operator scenarios against K3s in a container (Testcontainers' K3s module), where Docker is
 * available; skips otherwise. The node image is {@code -Dqueenkv.e2e.nodeImage} (pulled by K3s) if set;
 * else it is built here from {@code docker/node.Dockerfile} and the built jar, and imported into K3s's
 * containerd. {@code -Dqueenkv.e2e.k3sImage} picks the K3s image.
 */
class K3sOperatorE2eTest extends OperatorScenarios {
    static final String DEFAULT_K3S = "rancher/k3s:v1.31.4-k3s1";
    static final String LOCAL_NODE_IMAGE = "queen-kv-node:e2e";

    @Override
    ClusterUnderTest open() {
        assumeTrue(dockerAvailable(), "Docker is not available here, so there is no K3s container to run the operator scenarios in "
                + "(LocalOperatorE2eTest runs them against the mock API server and local node processes)");
        K3sContainer k3s = new K3sContainer(DockerImageName.parse(System.getProperty("queenkv.e2e.k3sImage", DEFAULT_K3S))
                .asCompatibleSubstituteFor("rancher/k3s"));
        k3s.start();
        try {
            String image = RealCluster.nodeImageSetting();
            if (image == null) image = buildAndImportNodeImage(k3s);
            return new RealCluster("K3s in a container (" + k3s.getDockerImageName() + ")", k3s.getKubeConfigYaml(), image, k3s::stop);
        } catch (Exception e) {
            k3s.stop();
            throw new IllegalStateException("could not set up K3s for the operator scenarios", e);
        }
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | Error e) {
            return false;
        }
    }

    /** Builds the node image from docker/node.Dockerfile with the built jars, saves it and imports it into K3s. */
    private static String buildAndImportNodeImage(K3sContainer k3s) throws Exception {
        Path jar = LocalCluster.nodeJar();
        Path dockerfile = LocalCluster.e2eDir().resolve("../docker/node.Dockerfile").normalize();
        new ImageFromDockerfile(LOCAL_NODE_IMAGE, false)
                .withFileFromPath("Dockerfile", dockerfile)
                .withFileFromPath("node/target/queen-kv-node.jar", jar)
                .withFileFromPath("cli/target/queen-kv-cli.jar", LocalCluster.e2eDir().resolve("../cli/target/queen-kv-cli.jar").normalize())
                .get();
        Path tar = Files.createTempFile("queen-kv-node-image", ".tar");
        try (InputStream in = DockerClientFactory.instance().client().saveImageCmd(LOCAL_NODE_IMAGE).exec()) {
            Files.copy(in, tar, StandardCopyOption.REPLACE_EXISTING);
        }
        try {
            k3s.copyFileToContainer(MountableFile.forHostPath(tar), "/tmp/queen-kv-node.tar");
            Container.ExecResult r = k3s.execInContainer("ctr", "-n", "k8s.io", "images", "import", "/tmp/queen-kv-node.tar");
            if (r.getExitCode() != 0) throw new IllegalStateException("ctr images import failed: " + r.getStderr());
        } finally {
            Files.deleteIfExists(tar);
        }
        return LOCAL_NODE_IMAGE;
    }
}
