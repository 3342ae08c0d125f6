package io.queenkv.e2e.harness;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Prints the clusters' log paths and the last lines of every node's log when a test fails, and
 * leaves a thread dump of every running node beside the logs.
 *
 * <pre>{@code
 * @RegisterExtension final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
 * ...
 * cluster = logs.watch(new NodeProcessCluster(3)).start();
 * }</pre>
 * It runs right after the test method, before {@code @AfterEach} closes the cluster.
 */
public final class ClusterLogsOnFailure implements AfterTestExecutionCallback {
    private final List<NodeProcessCluster> clusters = new ArrayList<>();

    public NodeProcessCluster watch(NodeProcessCluster cluster) {
        clusters.add(cluster);
        return cluster;
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        if (context.getExecutionException().isPresent()) {
            for (NodeProcessCluster c : clusters) {
                System.err.println("[e2e] " + context.getDisplayName() + " failed; " + c.describeWithLogs() + c.threadDumps());
            }
        }
        clusters.clear();
    }
}
