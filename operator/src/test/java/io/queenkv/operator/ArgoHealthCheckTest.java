package io.queenkv.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.lib.jse.JsePlatform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.crd.QueenKvClusterStatus;

/**
 * The Argo CD health check the chart ships ({@code argocd/health.lua}), run on statuses as the
 * reconciler writes them: Healthy only when Ready, Degraded only when Stalled, Progressing otherwise.
 */
class ArgoHealthCheckTest {
    static final Path SCRIPT = Path.of(System.getProperty("queenkv.chartDir", "../charts/queen-kv-operator"), "argocd", "health.lua");
    static final ObjectMapper JSON = new ObjectMapper();
    final Instant now = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void aClusterWithoutStatusIsProgressing() throws Exception {
        assertThat(health(cluster(1L, null))).containsEntry("status", "Progressing");
    }

    @Test
    void readyIsHealthy() throws Exception {
        Map<String, String> hs = health(cluster(2L, status(2L, true, null, null)));
        assertThat(hs).containsEntry("status", "Healthy");
        assertThat(hs.get("message")).contains("3 of 3 members ready");
    }

    @Test
    void aRollIsProgressing() throws Exception {
        Map<String, String> hs = health(cluster(3L, status(3L, true, QueenKvReconciler.REASON_ROLLING, null)));
        assertThat(hs).containsEntry("status", "Progressing");
        assertThat(hs.get("message")).startsWith("Rolling: ");
    }

    @Test
    void aMemberDownThatHealsByItselfIsProgressingNotDegraded() throws Exception {
        Map<String, String> hs = health(cluster(3L, status(3L, true, null, QueenKvReconciler.REASON_MEMBER_NOT_READY)));
        assertThat(hs).containsEntry("status", "Progressing");
        assertThat(hs.get("message")).startsWith(QueenKvReconciler.REASON_MEMBER_NOT_READY);
    }

    @Test
    void aStalledClusterIsDegraded() throws Exception {
        Map<String, String> hs = health(cluster(4L, status(4L, true, null, QueenKvReconciler.REASON_WOULD_LOSE_QUORUM)));
        assertThat(hs).containsEntry("status", "Degraded");
        assertThat(hs.get("message")).startsWith(QueenKvReconciler.REASON_WOULD_LOSE_QUORUM + ": ");
    }

    @Test
    void aGenerationTheOperatorHasNotSeenIsProgressingThoughTheOldOneWasReady() throws Exception {
        Map<String, String> hs = health(cluster(5L, status(4L, true, null, null)));
        assertThat(hs).containsEntry("status", "Progressing");
        assertThat(hs.get("message")).contains("generation 5");
    }

    // ---------------------------------------------------------------------------------------------

    private QueenKvClusterStatus status(Long generation, boolean available, String progressReason, String degradedReason) {
        QueenKvClusterStatus s = new QueenKvClusterStatus();
        List<Condition> conditions = new ArrayList<>();
        Conditions.set(conditions, QueenKvClusterStatus.AVAILABLE, available, QueenKvReconciler.REASON_QUORUM,
                "3 of 3 members ready, leader n0", generation, now);
        Conditions.set(conditions, QueenKvClusterStatus.PROGRESSING, progressReason != null,
                progressReason == null ? QueenKvReconciler.REASON_RECONCILED : progressReason, "rolling n2", generation, now);
        Conditions.set(conditions, QueenKvClusterStatus.DEGRADED, degradedReason != null,
                degradedReason == null ? QueenKvReconciler.REASON_HEALTHY : degradedReason, "n1 (pod not ready)", generation, now);
        Conditions.deriveKstatus(conditions, QueenKvReconciler.STALLED_REASONS, generation, now);
        s.getConditions().addAll(conditions);
        s.setObservedGeneration(generation);
        return s;
    }

    private static QueenKvCluster cluster(Long generation, QueenKvClusterStatus status) {
        QueenKvCluster c = new QueenKvCluster();
        c.setMetadata(new ObjectMetaBuilder().withName("kv").withNamespace("prod").withGeneration(generation).build());
        c.setStatus(status);
        return c;
    }

    /** Runs the script with {@code obj} the resource as Argo CD hands it over (its JSON as Lua tables). */
    private static Map<String, String> health(QueenKvCluster c) throws Exception {
        Globals lua = JsePlatform.standardGlobals();
        lua.set("obj", toLua(JSON.readTree(Serialization.asJson(c))));
        LuaValue hs = lua.load(Files.readString(SCRIPT), SCRIPT.toString()).call();
        return Map.of("status", hs.get("status").tojstring(), "message", hs.get("message").tojstring());
    }

    private static LuaValue toLua(JsonNode node) {
        if (node.isObject()) {
            LuaTable t = new LuaTable();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                t.set(e.getKey(), toLua(e.getValue()));
            }
            return t;
        }
        if (node.isArray()) {
            LuaTable t = new LuaTable();
            for (int i = 0; i < node.size(); i++) t.set(i + 1, toLua(node.get(i)));
            return t;
        }
        if (node.isIntegralNumber()) return org.luaj.vm2.LuaInteger.valueOf(node.asLong());
        if (node.isNumber()) return LuaValue.valueOf(node.asDouble());
        if (node.isBoolean()) return LuaValue.valueOf(node.asBoolean());
        if (node.isNull()) return LuaValue.NIL;
        return LuaValue.valueOf(node.asText());
    }
}
