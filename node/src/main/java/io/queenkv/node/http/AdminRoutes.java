package io.queenkv.node.http;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.ratis.protocol.RaftPeer;

import com.fasterxml.jackson.databind.JsonNode;

import io.javalin.http.Context;
import io.queenkv.node.access.Access;
import io.queenkv.node.api.Json;
import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;
import io.queenkv.node.kv.Setting;
import io.queenkv.node.kv.Settings;
import io.queenkv.node.kv.SnapshotCodec;
import io.queenkv.node.raft.ClusterAdmin;
import io.queenkv.node.raft.ReplicatedKv;

/**
 * {@code /api/v1/admin/*}: membership, leadership, snapshots and cluster-wide settings. Admin role
 * only (any caller while auth is off).
 */
final class AdminRoutes {
    /** Headers of a backup: the log index it holds, and how many keys. */
    static final String LOG_INDEX_HEADER = "X-Queen-KV-Log-Index", KEYS_HEADER = "X-Queen-KV-Keys";
    /** Admin bodies are a few fields. */
    private static final long MAX_BODY_BYTES = 64 * 1024;

    private final ReplicatedKv kv;
    private final ClusterAdmin admin;
    private final Access access;
    private final CallSlots slots;
    private final BodyReader bodies;

    AdminRoutes(ReplicatedKv kv, Access access, CallSlots slots, BodyReader bodies) {
        this.kv = kv;
        this.admin = new ClusterAdmin(kv);
        this.access = access;
        this.slots = slots;
        this.bodies = bodies;
    }

    /** An admin route: an admin caller, holding a call slot like any other call. */
    interface AdminCall {
        void handle(Context ctx) throws IOException;
    }

    io.javalin.http.Handler guarded(AdminCall call) {
        return ctx -> {
            Access.Caller caller = authorize(ctx);
            try (CallSlots.Slot slot = slots.take(caller, ctx.ip())) {
                call.handle(ctx);
            }
        };
    }

    /** {@code PUT /api/v1/admin/settings}: any subset of the settings; the rest stay as they are. */
    void changeSettings(Context ctx) throws IOException {
        JsonNode body = adminBody(ctx);
        // The settings in force, not this node's view of them: a member behind would turn the
        // settings a call did not name back to what they were.
        Settings next = kv.linearizable(KvEngine::settings);
        List<String> problems = new ArrayList<>();
        for (var it = body.fields(); it.hasNext(); ) {
            var field = it.next();
            Setting setting = Setting.byField(field.getKey());
            if (setting == null || setting.applies != Setting.Applies.LIVE)
                throw new Refusal(Reason.KV_BAD_REQUEST, "unknown setting '" + field.getKey() + "'; known: "
                        + Setting.live().stream().map(x -> x.field).toList());
            JsonNode n = field.getValue();
            if (!n.canConvertToExactIntegral() || !n.canConvertToLong()) {
                problems.add("'" + setting.field + "' must be an integer from " + setting.min + " to " + setting.max);
                continue;
            }
            // Checked as the number sent, before it is stored in a narrower type.
            String problem = setting.problem(n.longValue());
            if (problem != null) problems.add(problem);
            else next = next.with(setting, n.longValue());
        }
        if (!problems.isEmpty()) throw new Refusal(Reason.KV_BAD_REQUEST, String.join("; ", problems));
        long index = admin.changeSettings(next);
        // Answered once this node applies them too, so its own answers (/api/v1/cluster) show them.
        kv.linearizable(KvEngine::settingsIndex);
        respond(ctx, Map.of("settings", next, "settingsIndex", index));
    }

    /** {@code POST /api/v1/admin/members}: {@code {"id","raftAddress","httpAddress"}}. */
    void addMember(Context ctx) throws IOException {
        JsonNode body = adminBody(ctx);
        String id = text(body, "id");
        if (!NodeConfig.NODE_ID.matcher(id).matches()) throw new Refusal(Reason.KV_BAD_REQUEST, "'id' must match " + NodeConfig.NODE_ID.pattern());
        HostPort raft = HostPort.parse(text(body, "raftAddress"), "raftAddress");
        HostPort http = HostPort.parse(text(body, "httpAddress"), "httpAddress");
        if (!raft.host().equals(http.host())) throw new Refusal(Reason.KV_BAD_REQUEST, "raftAddress and httpAddress must name the same host");
        NodeConfig.Peer peer = new NodeConfig.Peer(id, raft.host(), raft.port(), http.port());
        respond(ctx, Map.of("members", render(admin.addMember(peer))));
    }

    /** {@code DELETE /api/v1/admin/members/{id}}. */
    void removeMember(Context ctx) throws IOException {
        respond(ctx, Map.of("members", render(admin.removeMember(ctx.pathParam("id")))));
    }

    /** {@code POST /api/v1/admin/leadership}: {@code {"to":"n2"}}, or no body for any other member. */
    void transferLeadership(Context ctx) throws IOException {
        byte[] raw = bodies.read(ctx, MAX_BODY_BYTES);
        JsonNode body = raw.length == 0 ? Json.MAPPER.createObjectNode() : Json.parseBody(raw);
        JsonNode to = body.get("to");
        if (to != null && !to.isNull() && !to.isTextual()) throw new Refusal(Reason.KV_BAD_REQUEST, "'to' must be a member id");
        respond(ctx, Map.of("leaderId", admin.transferLeadership(to == null || to.isNull() ? null : to.textValue())));
    }

    /** {@code POST /api/v1/admin/snapshot}: takes a snapshot on this node now. */
    void snapshot(Context ctx) throws IOException {
        respond(ctx, Map.of("snapshotIndex", admin.snapshot()));
    }

    /**
     * {@code GET /api/v1/admin/backup}: this node's whole state at one log index, after the
     * linearizable barrier, in the snapshot format (its CRC32C trailer covers every byte before it).
     * Written as it is read out of a frozen copy, so writes go on meanwhile.
     */
    void backup(Context ctx) throws IOException {
        ReplicatedKv.Backup backup = kv.backup();
        ctx.status(200).contentType("application/octet-stream");
        ctx.header(LOG_INDEX_HEADER, Long.toString(backup.index()));
        ctx.header(KEYS_HEADER, Long.toString(backup.state().keyCount()));
        ctx.header("Content-Disposition", "attachment; filename=\"queen-kv-" + kv.identity().clusterId() + "-" + backup.index() + ".backup\"");
        if (ctx.method() == io.javalin.http.HandlerType.HEAD) return; // the headers GET would send, no body
        try (OutputStream out = new BufferedOutputStream(ctx.res().getOutputStream(), 1 << 16)) {
            SnapshotCodec.write(backup.state(), out);
        }
    }

    static List<Map<String, Object>> render(List<RaftPeer> peers) {
        return peers.stream().map(p -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", p.getId().toString());
            m.put("raftAddress", p.getAddress());
            m.put("httpAddress", ReplicatedKv.httpAddressOf(p));
            return m;
        }).toList();
    }

    private Access.Caller authorize(Context ctx) {
        Access.Caller caller = access.authenticate(ctx.header("Authorization"));
        if (caller.role() != Access.Role.ADMIN) throw new Refusal(Reason.FORBIDDEN, "admin routes need an admin token");
        return caller;
    }

    private JsonNode adminBody(Context ctx) {
        JsonNode body = Json.parseBody(bodies.read(ctx, MAX_BODY_BYTES));
        if (!body.isObject()) throw new Refusal(Reason.KV_BAD_BODY, "body must be a JSON object");
        return body;
    }

    private static String text(JsonNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || !n.isTextual() || n.textValue().isBlank()) throw new Refusal(Reason.KV_BAD_REQUEST, "'" + field + "' is required");
        return n.textValue();
    }

    private static void respond(Context ctx, Map<String, Object> body) throws IOException {
        KvRoutes.respond(ctx, 200, Json.MAPPER.writeValueAsBytes(body));
    }
}
