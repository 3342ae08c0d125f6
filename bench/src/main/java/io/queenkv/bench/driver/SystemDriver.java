package io.queenkv.bench.driver;

import java.time.Duration;
import java.util.Optional;

import io.queenkv.bench.load.Workload;
import io.queenkv.bench.load.WorkloadSpec;

/** What the benchmark asks of a system, through its own client (our SDK, or jetcd). */
public sealed interface SystemDriver extends AutoCloseable permits QueenKvDriver, EtcdDriver {

    /** The server's own version string. */
    String serverVersion();

    /** Writes the keys the read, CAS, counter and page workloads expect to find. */
    void preload();

    /**
     * The workload for {@code spec} (the leader is looked up now), or empty when the system has no
     * such call; {@code inFlight} is how many slots the load generator will run.
     */
    Optional<Workload> workload(WorkloadSpec spec, int inFlight);

    /** Writes {@code count} keys of 256 B in calls of {@link KeySpace#LOAD_BATCH}; the time it took. */
    Duration loadBulk(int count);

    /** Index of the current leader among the members. */
    int leaderIndex();

    /** Takes a snapshot on the leader and answers how long it took. */
    Duration snapshotOnLeader();

    @Override
    void close();
}
