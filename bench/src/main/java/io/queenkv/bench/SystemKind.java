package io.queenkv.bench;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The systems a run compares. */
public enum SystemKind {
    ETCD_34("etcd-3.4", "etcd 3.4 (Debian etcd-server)"),
    ETCD_36("etcd-3.6", "etcd 3.6 (built from the Go module proxy)"),
    QUEEN_KV("queen-kv", "Queen KV (this build)");

    private final String id;
    private final String label;

    SystemKind(String id, String label) {
        this.id = id;
        this.label = label;
    }

    public String id() { return id; }

    public String label() { return label; }

    public boolean isEtcd() { return this != QUEEN_KV; }

    public static SystemKind byId(String id) {
        return Arrays.stream(values()).filter(s -> s.id.equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no system " + id + "; known: "
                        + Arrays.stream(values()).map(SystemKind::id).collect(Collectors.joining(", "))));
    }
}
