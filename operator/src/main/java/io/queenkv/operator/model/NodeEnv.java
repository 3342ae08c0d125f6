package io.queenkv.operator.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.queenkv.operator.crd.AuthSpec;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterSpec;

/**
 * The node container's environment. The node reads only {@code QUEEN_KV_*}; its id and host come
 * from the pod name, which only the container knows, so {@link #startScript} derives them:
 * {@code QUEEN_KV_NODE_ID=n<ordinal>} and {@code QUEEN_KV_HOST=<pod>.<c>-peers.<ns>.svc}.
 */
public final class NodeEnv {
    public static final String POD_NAME = "POD_NAME";
    public static final String POD_NAMESPACE = "POD_NAMESPACE";
    public static final String JAVA_OPTS = "JAVA_OPTS";
    public static final String BIND_ADDRESS = "QUEEN_KV_BIND_ADDRESS";
    public static final String CLUSTER_ID = "QUEEN_KV_CLUSTER_ID";
    public static final String INITIAL_CLUSTER_STATE = "QUEEN_KV_INITIAL_CLUSTER_STATE";
    public static final String TLS_CERT_FILE = "QUEEN_KV_TLS_CERT_FILE";
    public static final String TLS_KEY_FILE = "QUEEN_KV_TLS_KEY_FILE";
    public static final String TLS_CA_FILE = "QUEEN_KV_TLS_CA_FILE";
    public static final String RESTORE_FROM = "QUEEN_KV_RESTORE_FROM";

    /** {@code QUEEN_KV_INITIAL_CLUSTER_STATE}: whether a node may bootstrap the group (API.md §5). */
    public enum InitialClusterState {
        /** While the cluster is being created: the bootstrap members form the group. */
        NEW("new"),
        /** Once it was: a node never bootstraps; one with an empty data dir rejoins as a learner first. */
        EXISTING("existing");

        private final String value;

        InitialClusterState(String value) { this.value = value; }

        public String value() { return value; }

        /** {@code new} until status records the bootstrap ({@code status.bootstrappedAt}), {@code existing} from then on. */
        public static InitialClusterState of(QueenKvCluster c) {
            return c.getStatus() != null && c.getStatus().getBootstrappedAt() != null ? EXISTING : NEW;
        }
    }

    /** Settings field → the node's environment variable (README "Configuration"). */
    public static final Map<String, String> SETTINGS_ENV = Map.of(
            "maxOpsPerCall", "QUEEN_KV_MAX_OPS_PER_CALL",
            "maxKeysPerCall", "QUEEN_KV_MAX_KEYS_PER_CALL",
            "maxValueBytes", "QUEEN_KV_MAX_VALUE_BYTES",
            "maxBodyBytes", "QUEEN_KV_MAX_BODY_BYTES",
            "writeRate", "QUEEN_KV_WRITE_RATE",
            "readRate", "QUEEN_KV_READ_RATE");

    /** Variables the operator owns; a user's {@code spec.env} entry with one of these names is ignored. */
    public static final Set<String> RESERVED = Set.of(POD_NAME, POD_NAMESPACE, JAVA_OPTS,
            "QUEEN_KV_NODE_ID", "QUEEN_KV_HOST", "QUEEN_KV_HTTP_PORT", "QUEEN_KV_RAFT_PORT", "QUEEN_KV_PEERS",
            "QUEEN_KV_DATA_DIR", "QUEEN_KV_TOKENS_FILE", BIND_ADDRESS, CLUSTER_ID, INITIAL_CLUSTER_STATE, TLS_CERT_FILE, TLS_KEY_FILE, TLS_CA_FILE, RESTORE_FROM,
            "QUEEN_KV_MAX_OPS_PER_CALL", "QUEEN_KV_MAX_KEYS_PER_CALL", "QUEEN_KV_MAX_VALUE_BYTES",
            "QUEEN_KV_MAX_BODY_BYTES", "QUEEN_KV_WRITE_RATE", "QUEEN_KV_READ_RATE");

    private NodeEnv() {}

    /**
     * The container command's script. Exec'd so the JVM is PID 1's child-free replacement and gets
     * SIGTERM directly (the node hands leadership away on SIGTERM). The node image holds an
     * ahead-of-time cache trained from its jar, named by the jar's SHA-256 (docker/node.Dockerfile):
     * the JVM does not check that a cache matches the jar, so only the cache of this very jar is
     * used, and JAVA_OPTS come after it (a user's own {@code -XX:AOTCache} wins).
     */
    public static String startScript(QueenKvCluster c) {
        return "export QUEEN_KV_NODE_ID=\"n${POD_NAME##*-}\"\n"
                + "export QUEEN_KV_HOST=\"${POD_NAME}." + Names.peersService(Model.name(c)) + ".${POD_NAMESPACE}.svc\"\n"
                + "aot=\"" + Model.NODE_AOT_DIR + "/$(sha256sum " + Model.NODE_JAR + " 2>/dev/null | cut -c1-16).aot\"\n"
                + "[ -f \"$aot\" ] && set -- \"-XX:AOTCache=$aot\"\n"
                + "exec java \"$@\" $JAVA_OPTS -jar " + Model.NODE_JAR + "\n";
    }

    /** The seed settings as {@code QUEEN_KV_*} variables, only those the spec sets, in a fixed order. */
    public static Map<String, String> settings(KvSettings s) {
        Map<String, String> m = new LinkedHashMap<>();
        put(m, "QUEEN_KV_MAX_OPS_PER_CALL", s.getMaxOpsPerCall());
        put(m, "QUEEN_KV_MAX_KEYS_PER_CALL", s.getMaxKeysPerCall());
        put(m, "QUEEN_KV_MAX_VALUE_BYTES", s.getMaxValueBytes());
        put(m, "QUEEN_KV_MAX_BODY_BYTES", s.getMaxBodyBytes());
        put(m, "QUEEN_KV_WRITE_RATE", s.getWriteRate());
        put(m, "QUEEN_KV_READ_RATE", s.getReadRate());
        return m;
    }

    private static void put(Map<String, String> m, String k, Number v) {
        if (v != null) m.put(k, String.valueOf(v));
    }

    /** The node configuration that is the same on every pod (literal values; see {@link ConfigMapModel}). */
    public static Map<String, String> common(QueenKvCluster c) {
        QueenKvClusterSpec spec = Model.spec(c);
        Map<String, String> m = new LinkedHashMap<>();
        m.put("QUEEN_KV_HTTP_PORT", String.valueOf(Model.HTTP_PORT));
        m.put("QUEEN_KV_RAFT_PORT", String.valueOf(Model.RAFT_PORT));
        m.put("QUEEN_KV_PEERS", Peers.initialPeers(c));
        m.put("QUEEN_KV_DATA_DIR", Model.DATA_DIR);
        // Every pod address: peers and the Services reach the pod IP (a node without TLS binds 127.0.0.1 by default).
        m.put(BIND_ADDRESS, "0.0.0.0");
        // The resource's uid: a data dir of another cluster (a reused claim) is refused by the node.
        m.put(CLUSTER_ID, c.getMetadata().getUid());
        if (TlsModel.enabled(spec)) {
            m.put(TLS_CERT_FILE, Model.TLS_DIR + "/" + TlsModel.CERT_KEY);
            m.put(TLS_KEY_FILE, Model.TLS_DIR + "/" + TlsModel.KEY_KEY);
            m.put(TLS_CA_FILE, Model.TLS_DIR + "/" + TlsModel.CA_CERT_KEY);
        }
        AuthSpec auth = spec.getAuth();
        if (auth != null && auth.getTokensSecretRef() != null)
            m.put("QUEEN_KV_TOKENS_FILE", Model.TOKENS_DIR + "/" + auth.getTokensSecretRef().keyOr(AuthSpec.DEFAULT_TOKENS_KEY));
        m.putAll(settings(Model.settings(spec)));
        // Read only while the cluster is created (an initial member, `new`, an empty data dir).
        if (spec.getRestoreFrom() != null) m.put(RESTORE_FROM, Model.RESTORE_DIR + "/" + spec.getRestoreFrom().getPath());
        return m;
    }

    /** {@code JAVA_OPTS}: the defaults, then {@code spec.jvmOptions} (a later JVM flag wins). */
    public static String javaOpts(QueenKvClusterSpec spec) {
        List<String> opts = new ArrayList<>(List.of(Model.DEFAULT_JVM_OPTIONS));
        for (String o : Model.list(spec.getJvmOptions())) if (o != null && !o.isBlank()) opts.add(o.trim());
        return String.join(" ", opts);
    }

    /** The user's {@code spec.env} without the reserved names. */
    public static List<EnvVar> userEnv(QueenKvClusterSpec spec) {
        return Model.list(spec.getEnv()).stream().filter(e -> e != null && e.getName() != null && !RESERVED.contains(e.getName())).toList();
    }

    /** Names in {@code spec.env} the operator ignores because it sets them itself (for a status message). */
    public static List<String> ignoredUserEnv(QueenKvClusterSpec spec) {
        return Model.list(spec.getEnv()).stream().filter(e -> e != null && RESERVED.contains(e.getName())).map(EnvVar::getName).toList();
    }

    /** The container's whole environment: pod identity, node configuration, JAVA_OPTS, then the user's extras. */
    public static List<EnvVar> env(QueenKvCluster c) {
        QueenKvClusterSpec spec = Model.spec(c);
        List<EnvVar> env = new ArrayList<>();
        env.add(fieldRef(POD_NAME, "metadata.name"));
        env.add(fieldRef(POD_NAMESPACE, "metadata.namespace"));
        common(c).forEach((k, v) -> env.add(new EnvVar(k, v, null)));
        env.add(initialClusterState(c));
        env.add(new EnvVar(JAVA_OPTS, javaOpts(spec), null));
        env.addAll(userEnv(spec));
        return env;
    }

    /**
     * {@code QUEEN_KV_INITIAL_CLUSTER_STATE} from the ConfigMap, read when a container starts, not a literal
     * in the template: the flip from {@code new} to {@code existing} then changes no pod template (no roll,
     * no StatefulSet revision), and every container started after it (a deleted pod, one that lost its
     * claim, a scale-up, a crashed container) gets {@code existing}, the pods of a roll included.
     */
    static EnvVar initialClusterState(QueenKvCluster c) {
        return new EnvVarBuilder().withName(INITIAL_CLUSTER_STATE).withNewValueFrom().withNewConfigMapKeyRef()
                .withName(Names.configMap(Model.name(c))).withKey(INITIAL_CLUSTER_STATE).withOptional(false)
                .endConfigMapKeyRef().endValueFrom().build();
    }

    private static EnvVar fieldRef(String name, String path) {
        return new EnvVarBuilder().withName(name).withNewValueFrom().withNewFieldRef().withApiVersion("v1").withFieldPath(path)
                .endFieldRef().endValueFrom().build();
    }
}
