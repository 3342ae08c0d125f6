package io.queenkv.bench.load;

/**
 * The catalogue of workloads: what is sent, how many calls are in flight, and which members the
 * calls go to. Each system's driver turns a spec into its own {@link Workload}; {@link #etcdEquivalent}
 * says what the etcd side sends where etcd has no call of the same shape.
 */
public enum WorkloadSpec {
    PUT_1("put-256B-1", 1, Target.LEADER, "put of a 256 B value", "Put"),
    PUT_64("put-256B-64", 64, Target.LEADER, "put of a 256 B value", "Put"),
    PUT_256("put-256B-256", 256, Target.LEADER, "put of a 256 B value", "Put"),
    PUT_ALL_NODES_64("put-all-nodes-64", 64, Target.ALL_MEMBERS, "put of 256 B, clients spread over the 3 members", "Put"),
    GET_LINEARIZABLE_1("get-linearizable-1", 1, Target.ALL_MEMBERS, "linearizable get of a 256 B value", "Range (linearizable)"),
    GET_LINEARIZABLE_64("get-linearizable-64", 64, Target.ALL_MEMBERS, "linearizable get of a 256 B value", "Range (linearizable)"),
    GET_SERIALIZABLE_64("get-serializable-64", 64, Target.ALL_MEMBERS, "serializable (member-local) get; Queen KV has no such read",
            "Range (serializable)"),
    CAS_1("cas-one-key-1", 1, Target.LEADER, "compare-and-swap on one key (put with expect)",
            "Txn: If mod_revision == last seen Then Put Else Get"),
    CAS_64("cas-one-key-64", 64, Target.LEADER, "compare-and-swap on one key, 64 clients racing",
            "Txn: If mod_revision == last seen Then Put Else Get"),
    INCR_HOT_64("incr-hot-64", 64, Target.LEADER, "increment of one counter (incr)",
            "no incr: Txn If mod_revision == last seen Then Put value+1 Else Get, retried until it wins; one op = one increment"),
    PUT_64K_16("put-64KiB-16", 16, Target.LEADER, "put of a 64 KiB value", "Put"),
    BATCH_16("batch-16-puts-16", 16, Target.LEADER, "one call of 16 puts of 256 B (one Raft entry)", "Txn with 16 Puts"),
    GET_PREFIX_100("getPrefix-100-16", 16, Target.LEADER, "getPrefix page of 100 rows of 256 B",
            "Range over the prefix, limit 100 (linearizable)");

    /** Which members a workload's calls go to. */
    public enum Target {
        /** every call to the leader (found before the workload starts) */
        LEADER,
        /** in-flight slot i goes to member i mod 3 */
        ALL_MEMBERS
    }

    private final String id;
    private final int inFlight;
    private final Target target;
    private final String description;
    private final String etcdEquivalent;

    WorkloadSpec(String id, int inFlight, Target target, String description, String etcdEquivalent) {
        this.id = id;
        this.inFlight = inFlight;
        this.target = target;
        this.description = description;
        this.etcdEquivalent = etcdEquivalent;
    }

    public String id() { return id; }

    public int inFlight() { return inFlight; }

    public Target target() { return target; }

    public String description() { return description; }

    public String etcdEquivalent() { return etcdEquivalent; }
}
