package io.queenkv.operator.model;

/** Every name the operator derives from a cluster's name. Ordinal {@code i} is node {@code n<i>}. */
public final class Names {
    private Names() {}

    public static String statefulSet(String cluster) { return cluster; }

    /** The headless Service that gives each pod its stable DNS name. */
    public static String peersService(String cluster) { return cluster + "-peers"; }

    /** The ClusterIP Service applications call. */
    public static String clientService(String cluster) { return cluster; }

    public static String configMap(String cluster) { return cluster + "-config"; }

    /** The Secret the nodes mount in TLS modes Operator and CertManager: {@code ca.crt}, {@code tls.crt}, {@code tls.key}. */
    public static String tlsSecret(String cluster) { return cluster + "-tls"; }

    /** The operator's cluster CA (certificate and key); never mounted into a pod. */
    public static String caSecret(String cluster) { return cluster + "-ca"; }

    /** The cert-manager Certificate that writes {@link #tlsSecret}. */
    public static String certificate(String cluster) { return cluster + "-tls"; }

    public static String podDisruptionBudget(String cluster) { return cluster; }

    public static String backupCronJob(String cluster) { return cluster + "-backup"; }

    /** The claim scheduled backups go to (not owned by the cluster: it outlives it). */
    public static String backupClaim(String cluster) { return cluster + "-backups"; }

    public static String pod(String cluster, int ordinal) { return cluster + "-" + ordinal; }

    /** The PersistentVolumeClaim the StatefulSet creates for an ordinal (delete it after a scale-down). */
    public static String dataClaim(String cluster, int ordinal) { return Model.DATA_VOLUME + "-" + pod(cluster, ordinal); }

    public static String nodeId(int ordinal) { return "n" + ordinal; }

    /** The ordinal of node id {@code n<i>}, or -1 when the id is not of that form. */
    public static int ordinalOf(String nodeId) {
        if (nodeId == null || !nodeId.matches("n(0|[1-9][0-9]{0,5})")) return -1;
        return Integer.parseInt(nodeId.substring(1));
    }

    /** A pod's stable DNS name: {@code <cluster>-<i>.<cluster>-peers.<ns>.svc}. */
    public static String podHost(String cluster, String namespace, int ordinal) {
        return pod(cluster, ordinal) + "." + peersService(cluster) + "." + namespace + ".svc";
    }
}
