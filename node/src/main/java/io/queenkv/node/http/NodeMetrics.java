package io.queenkv.node.http;

import java.time.Duration;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.raft.ReplicatedKv;

/** The node's Prometheus metrics: requests by route and outcome, Raft indexes, stored keys and bytes. */
final class NodeMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    NodeMetrics(ReplicatedKv kv) {
        Gauge.builder("queen_kv_raft_commit_index", kv, k -> k.division().getRaftLog().getLastCommittedIndex())
                .description("Highest log index known to be committed").register(registry);
        Gauge.builder("queen_kv_raft_applied_index", kv, k -> k.division().getInfo().getLastAppliedIndex())
                .description("Highest log index applied to the state machine").register(registry);
        Gauge.builder("queen_kv_raft_term", kv, k -> k.division().getInfo().getCurrentTerm())
                .description("Current Raft term").register(registry);
        Gauge.builder("queen_kv_raft_leader", kv, k -> k.division().getInfo().isLeader() ? 1 : 0)
                .description("1 when this node is the leader").register(registry);
        Gauge.builder("queen_kv_keys", kv, k -> k.local(KvEngine::keyCount))
                .description("Stored keys, expired keys awaiting the sweep included").register(registry);
        Gauge.builder("queen_kv_value_bytes", kv, k -> k.local(KvEngine::valueBytes))
                .description("Compact JSON bytes of stored values").register(registry);
    }

    /** Records one request; {@code route} is the route template, {@code outcome} the status class or reason. */
    void request(String method, String route, int status, String outcome, Duration took) {
        Timer.builder("queen_kv_http_requests")
                .description("HTTP requests by route and outcome")
                .tag("method", method).tag("route", route).tag("status", Integer.toString(status)).tag("outcome", outcome)
                .publishPercentileHistogram(false)
                .register(registry)
                .record(took);
    }

    String scrape() {
        return registry.scrape();
    }
}
