package io.queenkv.node.http;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.raft.ReplicatedKv;

/** The node's Prometheus metrics: requests by route and outcome, Raft indexes, stored keys and bytes. */
final class NodeMetrics {
    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT");
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /**
     * One timer per label set, looked up in a map: building and registering the timer on every
     * request (the registry then finds the one it has) cost more than recording into it.
     */
    private final Map<RequestLabels, Timer> requestTimers = new ConcurrentHashMap<>();

    NodeMetrics(ReplicatedKv kv) {
        Gauge.builder("queen_kv_raft_commit_index", kv, k -> k.division().getRaftLog().getLastCommittedIndex())
                .description("Highest log index known to be committed").register(registry);
        Gauge.builder("queen_kv_raft_applied_index", kv, k -> k.division().getInfo().getLastAppliedIndex())
                .description("Highest log index applied to the state machine").register(registry);
        Gauge.builder("queen_kv_raft_term", kv, k -> k.division().getInfo().getCurrentTerm())
                .description("Current Raft term").register(registry);
        Gauge.builder("queen_kv_raft_leader", kv, k -> k.division().getInfo().isLeader() ? 1 : 0)
                .description("1 when this node is the leader").register(registry);
        Gauge.builder("queen_kv_raft_forwarded_calls", kv, ReplicatedKv::forwardedCallsInProgress)
                .description("Raft calls this node is forwarding to the leader right now (one thread each; one call may carry a group of writes)").register(registry);
        FunctionCounter.builder("queen_kv_write_groups_sent", kv, ReplicatedKv::writeGroupsSent)
                .description("Groups of write calls this node sent to Raft as one log entry each").register(registry);
        FunctionCounter.builder("queen_kv_write_calls_sent_in_groups", kv, ReplicatedKv::writeCallsSentInGroups)
                .description("Write calls this node sent to Raft in those groups").register(registry);
        FunctionCounter.builder("queen_kv_forwarded_calls_joined", kv, ReplicatedKv::forwardedCallsJoined)
                .description("Write calls followers forwarded that this node, as leader, wrote in its own groups").register(registry);
        FunctionCounter.builder("queen_kv_read_index_rounds", kv, ReplicatedKv::readIndexRounds)
                .description("ReadIndex rounds this node ran for linearizable reads; one serves every read that arrived before it started").register(registry);
        FunctionCounter.builder("queen_kv_reads_in_rounds", kv, ReplicatedKv::readsPassedRounds)
                .description("Linearizable reads that waited for those rounds").register(registry);
        Gauge.builder("queen_kv_raft_grouped_writes_allowed", kv, k -> k.groupsAllowedAsLeader() ? 1 : 0)
                .description("1 when this node is the leader and every member showed it applies grouped write calls").register(registry);
        Gauge.builder("queen_kv_raft_answers_as_sent", kv, k -> k.answersAsSentAsLeader() ? 1 : 0)
                .description("1 when this node is the leader and every member showed it reads grouped answers without the values their calls sent")
                .register(registry);
        Gauge.builder("queen_kv_keys", kv, k -> k.local(KvEngine::keyCount))
                .description("Stored keys, expired keys awaiting the sweep included").register(registry);
        Gauge.builder("queen_kv_value_bytes", kv, k -> k.local(KvEngine::valueBytes))
                .description("Compact JSON bytes of stored values").register(registry);
        Gauge.builder("queen_kv_idempotency_records", kv, k -> k.local(KvEngine::idempotencyRecords))
                .description("Answers of write calls with an Idempotency-Key, kept 10 minutes for retries (the SDK sends a key with every write)")
                .register(registry);
    }

    /**
     * Records one request; {@code route} is the route template, null when none matched. Every label
     * comes from a closed set, whatever a client sends: a made-up method counts as {@code OTHER}, every
     * unmatched path as the one route {@code unmatched}, so no request adds a series of its own.
     */
    void request(String method, String route, int status, Duration took) {
        // A status past 100-599 counts as "other", under the outcome its number falls in.
        int counted = status < 100 ? 99 : Math.min(status, 600);
        requestTimers.computeIfAbsent(new RequestLabels(METHODS.contains(method) ? method : "OTHER", route == null ? "unmatched" : route, counted),
                this::requestTimer).record(took);
    }

    private record RequestLabels(String method, String route, int status) {}

    private Timer requestTimer(RequestLabels labels) {
        int status = labels.status();
        return Timer.builder("queen_kv_http_requests")
                .description("HTTP requests by route and outcome")
                .tag("method", labels.method())
                .tag("route", labels.route())
                .tag("status", status >= 100 && status <= 599 ? Integer.toString(status) : "other")
                .tag("outcome", status < 400 ? "ok" : status < 500 ? "refused" : "failed")
                .publishPercentileHistogram(false)
                .register(registry);
    }

    String scrape() {
        return registry.scrape();
    }
}
