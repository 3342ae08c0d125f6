package io.queenkv.operator.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;
import io.queenkv.operator.crd.SpecDuration;
import io.queenkv.operator.crd.StorageSpec;

/** Constants of the node's container and the helpers every builder shares. */
public final class Model {
    public static final int HTTP_PORT = 6632;
    public static final int RAFT_PORT = 6634;
    public static final String HTTP_PORT_NAME = "http";
    public static final String RAFT_PORT_NAME = "raft";

    public static final String CONTAINER = "node";
    /** Where the node's image keeps the shaded jar ({@code node/target/queen-kv-node.jar}). */
    public static final String NODE_JAR = "/app/queen-kv-node.jar";
    /** Where the node image keeps the JDK's ahead-of-time cache of {@link #NODE_JAR}, as {@code <first 16 hex of its SHA-256>.aot}. */
    public static final String NODE_AOT_DIR = "/app/aot";
    public static final String DATA_VOLUME = "data";
    public static final String DATA_DIR = "/data";
    public static final String TMP_VOLUME = "tmp";
    public static final String TOKENS_VOLUME = "tokens";
    public static final String TOKENS_DIR = "/etc/queen-kv/tokens";
    public static final String TLS_VOLUME = "tls";
    public static final String TLS_DIR = "/etc/queen-kv/tls";
    public static final String RESTORE_VOLUME = "restore";
    public static final String RESTORE_DIR = "/etc/queen-kv/restore";
    public static final String CLI_JAR = "/app/queen-kv-cli.jar";
    public static final String BACKUPS_VOLUME = "backups";
    public static final String BACKUPS_DIR = "/backups";

    /** Pod annotation: hash of the fields whose change needs a restart (see {@link PodTemplateHash}). */
    public static final String POD_TEMPLATE_HASH_ANNOTATION = "queenkv.io/pod-template-hash";
    /** On a QueenKvCluster: any new value restarts every pod, one at a time, as a spec change would (README "Day-2"). */
    public static final String RESTARTED_AT_ANNOTATION = "queenkv.io/restartedAt";
    /** On a QueenKvCluster: {@code "true"} stops the operator from changing anything; it keeps status true. */
    public static final String PAUSED_ANNOTATION = "queenkv.io/paused";

    public static final long UID = 10001;
    public static final long TERMINATION_GRACE_SECONDS = 60;
    public static final int PRE_STOP_SLEEP_SECONDS = 5;
    public static final String DEFAULT_JVM_OPTIONS = "-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError";

    private Model() {}

    public static String name(QueenKvCluster c) { return c.getMetadata().getName(); }

    public static String namespace(QueenKvCluster c) { return c.getMetadata().getNamespace(); }

    /** The resource's {@link #RESTARTED_AT_ANNOTATION}, or null. */
    public static String restartedAt(QueenKvCluster c) { return annotation(c, RESTARTED_AT_ANNOTATION); }

    /** Whether {@link #PAUSED_ANNOTATION} is {@code "true"}. */
    public static boolean paused(QueenKvCluster c) { return "true".equals(annotation(c, PAUSED_ANNOTATION)); }

    private static String annotation(QueenKvCluster c, String name) {
        Map<String, String> a = c.getMetadata() == null ? null : c.getMetadata().getAnnotations();
        return a == null ? null : a.get(name);
    }

    public static QueenKvClusterSpec spec(QueenKvCluster c) {
        return c.getSpec() == null ? new QueenKvClusterSpec() : c.getSpec();
    }

    /** The desired number of members ({@code spec.replicas}, default 3). */
    public static int replicas(QueenKvClusterSpec spec) {
        return spec.getReplicas() == null ? QueenKvClusterSpec.DEFAULT_REPLICAS : spec.getReplicas();
    }

    /**
     * How many ordinals the initial peer list holds: fixed when the cluster is created and recorded in
     * {@code status.bootstrapReplicas}; before the first status write, {@code spec.replicas}.
     */
    public static int bootstrapReplicas(QueenKvCluster c) {
        if (c.getStatus() != null && c.getStatus().getBootstrapReplicas() != null) return c.getStatus().getBootstrapReplicas();
        return replicas(spec(c));
    }

    /** {@code spec.removeMembers}, empty when unset. */
    public static List<Integer> removeMembers(QueenKvClusterSpec spec) {
        return list(spec.getRemoveMembers());
    }

    /**
     * {@code spec.replaceNotServingAfter} ({@link QueenKvClusterSpec#DEFAULT_REPLACE_NOT_SERVING_AFTER} when unset);
     * {@link Duration#ZERO} when off: {@code 0}, or a value the CRD's pattern refuses (an older CRD let it in): a
     * disk is never wiped on a value the operator cannot read.
     */
    public static Duration replaceNotServingAfter(QueenKvClusterSpec spec) {
        String v = spec.getReplaceNotServingAfter() == null ? QueenKvClusterSpec.DEFAULT_REPLACE_NOT_SERVING_AFTER
                : spec.getReplaceNotServingAfter();
        return SpecDuration.parse(v).orElse(Duration.ZERO);
    }

    public static StorageSpec storage(QueenKvClusterSpec spec) {
        StorageSpec s = spec.getStorage() == null ? new StorageSpec() : spec.getStorage();
        return new StorageSpec(s.getSize() == null ? StorageSpec.DEFAULT_SIZE : s.getSize(), s.getStorageClassName());
    }

    public static KvSettings settings(QueenKvClusterSpec spec) {
        return spec.getSettings() == null ? new KvSettings() : spec.getSettings();
    }

    static <T> List<T> list(List<T> l) { return l == null ? List.of() : l; }

    static <K, V> Map<K, V> map(Map<K, V> m) { return m == null ? Map.of() : m; }

    /** The owner reference that makes Kubernetes delete a resource with its cluster. */
    public static OwnerReference ownerReference(QueenKvCluster c) {
        return new OwnerReferenceBuilder()
                .withApiVersion(QueenKvCluster.API_VERSION)
                .withKind(QueenKvCluster.KIND)
                .withName(name(c))
                .withUid(c.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    /** Name, namespace, the operator's labels and the owner reference. */
    static ObjectMeta metadata(QueenKvCluster c, String name) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace(c))
                .withLabels(Labels.of(name(c)))
                .withOwnerReferences(ownerReference(c))
                .build();
    }
}
