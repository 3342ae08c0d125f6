package io.queenkv.node.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServer;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.queenkv.node.NodeVersion;
import io.queenkv.node.access.Access;
import io.queenkv.node.access.RateLimiter;
import io.queenkv.node.api.Json;
import io.queenkv.node.api.ResultJson;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;
import io.queenkv.node.kv.Settings;
import io.queenkv.node.raft.ReplicatedKv;
import io.queenkv.node.tls.NodeTls;

/** The node's HTTP API: KV routes, operations endpoints, and the one error mapper. */
public final class HttpServer implements AutoCloseable {
    /**
     * How long {@code /readyz} waits for a ReadIndex round; under the readiness probe's 3 s timeout,
     * so a slow round reads as not ready rather than as a probe that timed out.
     */
    static final Duration READY_WAIT = Duration.ofSeconds(2);
    private static final String STARTED_AT = "queenkv.startedAt";
    private static final String ROUTE = "queenkv.route";
    private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);
    private static final byte[] HEALTHY_BODY = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);

    /** {@code GET /version}: open like {@code /healthz}, it names no tenant data. */
    private static final byte[] VERSION_BODY = ("{\"version\":\"" + NodeVersion.version() + "\",\"api\":\"v1\",\"java\":\""
            + NodeVersion.java() + "\"}").getBytes(StandardCharsets.UTF_8);

    /** See {@link BodyReader} and {@link CallSlots} for the other bounds; README "Limits and timeouts" lists them all. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(15);

    private final ReplicatedKv kv;
    private final Access access;
    private final boolean metricsRequireToken;
    private final NodeMetrics metrics;
    private final Javalin app;

    /**
     * @param tls the node's TLS identity: the port then serves HTTPS only; null serves plain HTTP
     * @param metricsRequireToken whether {@code /metrics} needs a token (of any role) while auth is on
     * @param bounds how many calls may be in progress per tenant and in all
     */
    public HttpServer(ReplicatedKv kv, Access access, String bindAddress, int port, NodeTls tls, boolean metricsRequireToken,
                      NodeConfig.CallBounds bounds) {
        this.kv = kv;
        this.access = access;
        this.metricsRequireToken = metricsRequireToken;
        this.metrics = new NodeMetrics(kv);
        CallSlots slots = new CallSlots(bounds.perTenant(), bounds.perNode(), !access.enabled());
        BodyReader bodies = new BodyReader();
        KvRoutes routes = new KvRoutes(kv, access, new RateLimiter(System::nanoTime), slots, bodies);
        AdminRoutes admin = new AdminRoutes(kv, access, slots, bodies);
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = bindAddress;
            config.jetty.port = port;
            config.jetty.threadPool = threadPool(bounds.perNode());
            config.jetty.modifyHttpConfiguration(http -> {
                // Keys may hold an encoded slash (%2F); the KV routes decode the raw path themselves.
                http.setUriCompliance(UriCompliance.UNSAFE);
                // A request that neither sends nor takes bytes for this long is ended: stalled
                // bodies and unread answers give their thread back. Longer than a call's deadline.
                http.setIdleTimeout(IDLE_TIMEOUT.toMillis());
            });
            // Requests Jetty refuses before routing (e.g. a path holding %00) still get a JSON error body.
            config.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
            // With a connector of our own Javalin adds no plain one: the port speaks TLS or nothing.
            if (tls != null) config.jetty.addConnector((server, http) -> httpsConnector(server, http, tls, bindAddress, port));
            config.routes.before(ctx -> ctx.attribute(STARTED_AT, System.nanoTime()));
            config.routes.after(this::recordRequest);
            String single = "/api/v1/kv/{ns}/<key>";
            config.routes.post("/api/v1/kv", named("/api/v1/kv", routes::batch));
            // Matched as one wildcard, so an empty ns or key gets its 400 (kv_bad_namespace, kv_bad_key), not a 404.
            String anyKvPath = "/api/v1/kv/<path>";
            // HEAD answers as GET would, without the body (Javalin's own HEAD answers 200 without running the route).
            for (HandlerType read : List.of(HandlerType.GET, HandlerType.HEAD)) {
                config.routes.addHttpHandler(read, anyKvPath, named(single, routes::single));
                config.routes.addHttpHandler(read, "/healthz", named("/healthz", ctx -> KvRoutes.respond(ctx, 200, HEALTHY_BODY)));
                config.routes.addHttpHandler(read, "/version", named("/version", ctx -> KvRoutes.respond(ctx, 200, VERSION_BODY)));
                config.routes.addHttpHandler(read, "/readyz", named("/readyz", this::readyz));
                config.routes.addHttpHandler(read, "/metrics", named("/metrics", this::metrics));
                config.routes.addHttpHandler(read, "/api/v1/cluster", named("/api/v1/cluster", this::cluster));
                config.routes.addHttpHandler(read, "/api/v1/admin/backup", named("/api/v1/admin/backup", admin.guarded(admin::backup)));
            }
            config.routes.put(anyKvPath, named(single, routes::single));
            config.routes.delete(anyKvPath, named(single, routes::single));
            config.routes.put("/api/v1/admin/settings", named("/api/v1/admin/settings", admin.guarded(admin::changeSettings)));
            config.routes.post("/api/v1/admin/members", named("/api/v1/admin/members", admin.guarded(admin::addMember)));
            config.routes.delete("/api/v1/admin/members/{id}", named("/api/v1/admin/members/{id}", admin.guarded(admin::removeMember)));
            config.routes.post("/api/v1/admin/leadership", named("/api/v1/admin/leadership", admin.guarded(admin::transferLeadership)));
            config.routes.post("/api/v1/admin/snapshot", named("/api/v1/admin/snapshot", admin.guarded(admin::snapshot)));
            config.routes.exception(Refusal.class, (e, ctx) -> refuse(ctx, e.reason(), e.detail()));
            // A Raft call that failed outside the KV path (admin operations): unavailable, not internal.
            config.routes.exception(java.io.IOException.class, (e, ctx) -> {
                Refusal r = ReplicatedKv.unavailable(e);
                refuse(ctx, r.reason(), r.detail());
            });
            config.routes.exception(Exception.class, (e, ctx) -> {
                LOG.error("{} {} failed", ctx.method(), ctx.attribute(ROUTE), e);
                refuse(ctx, Reason.INTERNAL, "the node failed on this call; its log says why");
            });
            // No KV route answers 404 (an absent key is 200 found:false); unknown paths do, and an
            // admin route's own 404 (no such member) keeps its body.
            config.routes.error(404, ctx -> {
                if (ctx.attribute(ROUTE) == null) refuse(ctx, Reason.NOT_FOUND, "no route " + ctx.method().name() + " " + ctx.path());
            });
        });
        app.start();
    }

    public int port() {
        return app.port();
    }

    /**
     * HTTPS with the node's certificate, re-read by {@link NodeTls} when it changes on disk. Clients
     * authenticate with bearer tokens, so no client certificate is asked for.
     */
    private static ServerConnector httpsConnector(Server server, HttpConfiguration http, NodeTls tls, String host, int port) {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setSslContext(tls.sslContext());
        HttpConfiguration https = new HttpConfiguration(http);
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        // Clients check that the certificate names the host they asked for; Jetty's own check of the
        // Host header against the certificate would only refuse requests by an address the cert lacks.
        secure.setSniHostCheck(false);
        https.addCustomizer(secure);
        ServerConnector connector = new ServerConnector(server, new SslConnectionFactory(ssl, HttpVersion.HTTP_1_1.asString()),
                new HttpConnectionFactory(https));
        connector.setHost(host);
        connector.setPort(port);
        return connector;
    }

    /** Tags the request with its route template, for the metrics. */
    private static Handler named(String route, Handler handler) {
        return ctx -> {
            ctx.attribute(ROUTE, route);
            handler.handle(ctx);
        };
    }

    /** Server threads: the node-wide call bound plus room for probes, metrics, refusals and Jetty's own selectors. */
    private static QueuedThreadPool threadPool(int callsPerNode) {
        QueuedThreadPool pool = new QueuedThreadPool(callsPerNode + 64, 8, 60_000);
        pool.setName("queen-kv-http");
        return pool;
    }

    private static void refuse(Context ctx, Reason reason, String detail) {
        if ((reason.status() == 503 || reason.status() == 429) && ctx.res().getHeader("Retry-After") == null) ctx.header("Retry-After", "1");
        KvRoutes.respond(ctx, reason.status(), ResultJson.error(reason, detail));
    }

    private void recordRequest(Context ctx) {
        Long started = ctx.attribute(STARTED_AT);
        if (started == null) return;
        metrics.request(ctx.method().name(), ctx.attribute(ROUTE), ctx.statusCode(), Duration.ofNanos(System.nanoTime() - started));
    }

    /** Open by default, so Prometheus scrapes without a secret; it carries no tenant data. */
    private void metrics(Context ctx) {
        if (metricsRequireToken) access.authenticate(ctx.header("Authorization"));
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape());
    }

    private void cluster(Context ctx) throws Exception {
        access.authenticate(ctx.header("Authorization")); // any role; it names members and addresses
        KvRoutes.respond(ctx, 200, Json.MAPPER.writeValueAsBytes(clusterStatus()));
    }

    private void readyz(Context ctx) {
        if (kv.membership().isEmpty()) {
            KvRoutes.respond(ctx, 503, "{\"status\":\"unavailable\",\"member\":false}".getBytes());
            return;
        }
        RaftServer.Division d = kv.division();
        boolean leaderKnown = d.getInfo().isAlive() && d.getInfo().getLeaderId() != null;
        boolean ready = leaderKnown && kv.caughtUp(READY_WAIT);
        String body = ready ? "{\"status\":\"ok\"}"
                : "{\"status\":\"unavailable\",\"leaderKnown\":" + leaderKnown
                        + ",\"commitIndex\":" + d.getRaftLog().getLastCommittedIndex()
                        + ",\"appliedIndex\":" + d.getInfo().getLastAppliedIndex() + "}";
        KvRoutes.respond(ctx, ready ? 200 : 503, body.getBytes());
    }

    /** {@code GET /api/v1/cluster}: this node's view of the group. */
    Map<String, Object> clusterStatus() {
        if (kv.membership().isEmpty()) return notAMemberStatus();
        RaftServer.Division d = kv.division();
        var info = d.getInfo();
        String leaderId = info.getLeaderId() == null ? null : info.getLeaderId().toString();
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("nodeId", kv.selfId().toString());
        status.put("clusterId", kv.identity().clusterId());
        status.put("incarnation", kv.identity().incarnation());
        status.put("membership", kv.admissionState());
        status.put("role", info.isLeader() ? "leader" : info.isCandidate() ? "candidate" : info.isListener() ? "learner" : "follower");
        status.put("term", info.getCurrentTerm());
        status.put("leaderId", leaderId);
        List<Map<String, Object>> members = new java.util.ArrayList<>();
        List<String> readmitting = kv.readmitting();
        List<RaftPeer> peers = new java.util.ArrayList<>(d.getRaftConf().getCurrentPeers(RaftPeerRole.FOLLOWER));
        peers.addAll(d.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER));
        for (RaftPeer peer : peers) {
            String id = peer.getId().toString();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", id);
            m.put("raftAddress", peer.getAddress());
            m.put("httpAddress", ReplicatedKv.httpAddressOf(peer));
            m.put("role", id.equals(leaderId) ? "leader" : readmitting.contains(id) ? "learner" : "follower");
            members.add(m);
        }
        status.put("members", members);
        status.put("readmitting", readmitting);
        status.put("commitIndex", d.getRaftLog().getLastCommittedIndex());
        status.put("appliedIndex", info.getLastAppliedIndex());
        Settings settings = kv.local(KvEngine::settings);
        status.put("settings", settings);
        status.put("settingsIndex", kv.local(KvEngine::settingsIndex));
        return status;
    }

    /** A node started outside the peer list, waiting to be added: no group, no indexes yet. */
    private Map<String, Object> notAMemberStatus() {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("nodeId", kv.selfId().toString());
        status.put("clusterId", kv.identity().clusterId());
        status.put("incarnation", kv.identity().incarnation());
        status.put("membership", kv.admissionState());
        status.put("role", "learner");
        status.put("term", 0);
        status.put("leaderId", null);
        status.put("members", List.of());
        status.put("readmitting", List.of());
        status.put("commitIndex", 0);
        status.put("appliedIndex", 0);
        status.put("settings", kv.local(KvEngine::settings));
        status.put("settingsIndex", kv.local(KvEngine::settingsIndex));
        return status;
    }

    @Override
    public void close() {
        app.stop();
    }
}
