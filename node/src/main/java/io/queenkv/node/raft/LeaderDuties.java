package io.queenkv.node.raft;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.KvEngine;

/**
 * What only the leader does, on a timer: step down when its term began with log appenders Ratis left
 * over ({@link LeftoverAppenders}), commit the seed settings of a new cluster once, re-admit
 * members that lost their data ({@link Readmission}), and sweep expired rows through the log in
 * bounded batches, and learn whether every member applies grouped write calls
 * ({@link EntryFormats}). Every member also runs its own part of a re-admission here
 * ({@link Readmission#askToBeTakenBackIn}).
 */
public final class LeaderDuties implements AutoCloseable {
    static final int SWEEP_BATCH_ROWS = 1_000;
    private static final Logger LOG = LoggerFactory.getLogger(LeaderDuties.class);

    private final ReplicatedKv kv;
    private final LongSupplier clockMicros;
    private final Readmission readmission;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "queen-kv-leader-duties");
        t.setDaemon(true);
        return t;
    });

    public LeaderDuties(ReplicatedKv kv, LongSupplier clockMicros, long periodMillis) {
        this.kv = kv;
        this.clockMicros = clockMicros;
        this.readmission = new Readmission(kv);
        timer.scheduleWithFixedDelay(this::run, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    private void run() {
        try {
            if (readmission.reopenIfClosed()) return;
            var outside = kv.startedOutsideTheGroup();
            if (outside.isPresent()) {
                readmission.askToBeTakenBackIn(outside.get());
                return;
            }
            var division = kv.division();
            readmission.observe(division.getRaftConf());
            readmission.askToBeTakenBackIn(division);
            var info = division.getInfo();
            if (!info.isLeader() || !info.isLeaderReady()) return;
            if (kv.leftoverAppenders().stepDownIfAny(kv, division)) return;
            kv.entryFormats().refresh(division.getRaftConf());
            if (kv.local(KvEngine::settingsIndex) == 0) {
                kv.write(new Entry.SeedSettings(0, kv.config().seedSettings())).get(10, TimeUnit.SECONDS);
                if (kv.local(KvEngine::settingsIndex) > 0)
                    LOG.info("settings in force: {} (log index {})", kv.local(KvEngine::settings), kv.local(KvEngine::settingsIndex));
            }
            readmission.run(division);
            long now = clockMicros.getAsLong();
            while (kv.local(e -> e.hasDueRows(now)))
                kv.write(new Entry.Sweep(0, SWEEP_BATCH_ROWS)).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("leader duties skipped this round: {}", e.toString());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
