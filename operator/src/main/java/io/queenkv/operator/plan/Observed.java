package io.queenkv.operator.plan;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.model.Labels;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.nodes.ClusterView;
import io.queenkv.operator.nodes.NodeAdmin;
import io.queenkv.operator.nodes.NodeAdminException;

/**
 * What one reconcile sees: the cluster's pods by ordinal, each reachable node's view of the group, and
 * what follows from them: the leader, the members (in the leader's configuration) and which are ready.
 * {@link #of} is the only part that calls anything; the rest reads the record, so the {@link Planner} and
 * its tests can use it without a cluster.
 */
public record Observed(Map<Integer, Pod> pods, Map<Integer, ClusterView> views, Map<Integer, String> unreachable,
                ClusterView leaderView) {

    /** How far a member's applied index may trail the leader's commit index and still count as caught up (from {@code /api/v1/cluster}). */
    public static final long CATCH_UP_LAG = 1000;

    public static Observed of(KubernetesClient client, NodeAdmin nodes, QueenKvCluster c) {
        Map<Integer, Pod> pods = new TreeMap<>();
        for (Pod p : client.pods().inNamespace(Model.namespace(c)).withLabels(Labels.selector(Model.name(c))).list().getItems()) {
            int ordinal = podOrdinal(Model.name(c), p.getMetadata().getName());
            if (ordinal >= 0) pods.put(ordinal, p);
        }
        Map<Integer, ClusterView> views = new TreeMap<>();
        Map<Integer, String> unreachable = new TreeMap<>();
        for (Map.Entry<Integer, Pod> e : pods.entrySet()) {
            if (terminating(e.getValue())) continue;
            try {
                views.put(e.getKey(), nodes.cluster(c, e.getKey()));
            } catch (NodeAdminException ex) {
                unreachable.put(e.getKey(), ex.getMessage());
            }
        }
        ClusterView leader = views.values().stream().filter(ClusterView::isLeader)
                .max(Comparator.comparingLong(ClusterView::term)).orElse(null);
        return new Observed(pods, views, unreachable, leader);
    }

    public static int podOrdinal(String cluster, String podName) {
        String prefix = cluster + "-";
        if (podName == null || !podName.startsWith(prefix)) return -1;
        String rest = podName.substring(prefix.length());
        return rest.matches("0|[1-9][0-9]{0,5}") ? Integer.parseInt(rest) : -1;
    }

    public static boolean terminating(Pod p) {
        return p.getMetadata().getDeletionTimestamp() != null;
    }

    /** Container states a pod does not leave by itself waiting: it needs a new template (or a new node). */
    public static final java.util.Set<String> STUCK_REASONS = java.util.Set.of("CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull",
            "CreateContainerConfigError", "InvalidImageName");

    /** Pending (unscheduled, or its containers not created) or a container waiting for one of {@link #STUCK_REASONS}. */
    public static boolean stuck(Pod p) {
        if (p.getStatus() == null) return false;
        if ("Pending".equals(p.getStatus().getPhase())) return true;
        return p.getStatus().getContainerStatuses() != null && p.getStatus().getContainerStatuses().stream()
                .anyMatch(cs -> cs.getState() != null && cs.getState().getWaiting() != null
                        && STUCK_REASONS.contains(cs.getState().getWaiting().getReason()));
    }

    public static boolean podReady(Pod p) {
        return p != null && !terminating(p) && p.getStatus() != null && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream().anyMatch(cond -> "Ready".equals(cond.getType()) && "True".equals(cond.getStatus()));
    }

    /**
     * Since when member {@code id} has not served, given that status {@code recorded} it: the later of that and the
     * instant its pod's Ready condition last turned False. Status is the operator's memory; it misses a recovery
     * and a new failure that happened while the operator was down, and the kubelet's transition time does not.
     * A pod created afresh starts not ready: the clock then starts again with it (later, never sooner: a
     * replacement wipes a disk).
     */
    public Instant notServingSince(String id, Instant recorded) {
        Pod p = pods.get(Names.ordinalOf(id));
        if (p == null || p.getStatus() == null || p.getStatus().getConditions() == null) return recorded;
        return p.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()) && c.getLastTransitionTime() != null)
                .findFirst().flatMap(c -> {
                    try {
                        return Optional.of(Instant.parse(c.getLastTransitionTime()));
                    } catch (DateTimeParseException e) {
                        return Optional.empty();
                    }
                })
                .filter(recorded::isBefore).orElse(recorded);
    }

    public String leaderId() { return leaderView == null ? null : leaderView.nodeId(); }

    public int leaderOrdinal() { return Names.ordinalOf(leaderId()); }

    /** Member ids in the leader's configuration, in ordinal order (empty without a leader). */
    public List<String> members() {
        if (leaderView == null) return List.of();
        List<String> ids = new ArrayList<>(leaderView.members().stream().map(ClusterView.Member::id).toList());
        ids.sort(Comparator.comparingInt(Names::ordinalOf));
        return ids;
    }

    /** Members that vote (learners do not count towards the quorum). */
    public List<String> voters() {
        return members().stream().filter(id -> leaderView.member(id).map(m -> !m.learner()).orElse(false)).toList();
    }

    /** Ids the leader re-admits after they lost their disk (in the configuration as learners, or not yet back in it). */
    public List<String> readmitting() {
        if (leaderView == null) return List.of();
        List<String> ids = new ArrayList<>(leaderView.readmitting());
        ids.sort(Comparator.comparingInt(Names::ordinalOf));
        return ids;
    }

    public boolean isMember(String id) { return leaderView != null && leaderView.hasMember(id); }

    public Optional<Pod> pod(int ordinal) { return Optional.ofNullable(pods.get(ordinal)); }

    /** The pod's pod-template hash annotation, or null. */
    public String podHash(int ordinal) {
        Pod p = pods.get(ordinal);
        if (p == null || p.getMetadata().getAnnotations() == null) return null;
        return p.getMetadata().getAnnotations().get(Model.POD_TEMPLATE_HASH_ANNOTATION);
    }

    /**
     * A ready member: in the leader's configuration, its pod ready, and its node reachable, knowing the
     * leader and applied to within {@link #CATCH_UP_LAG} of the leader's commit index.
     */
    public boolean ready(String id) {
        int ordinal = Names.ordinalOf(id);
        if (!isMember(id) || ordinal < 0 || !podReady(pods.get(ordinal))) return false;
        ClusterView v = views.get(ordinal);
        return v != null && v.leaderId() != null && v.hasMember(id) && leaderView.commitIndex() - v.appliedIndex() <= CATCH_UP_LAG;
    }

    /**
     * For status only: {@linkplain #ready ready}, or its pod Ready while its node did not answer this time
     * or answered knowing no leader (a slow answer, an election, a leadership transfer under way). The
     * kubelet's readiness probe already tolerates a few failed answers, so one observation does not take
     * away a member the probe says serves; a node that answers lagging behind is not serving. Steps that
     * act (a restart, a removal) ask {@link #ready} instead.
     */
    public boolean serving(String id) {
        if (ready(id)) return true;
        int ordinal = Names.ordinalOf(id);
        if (!isMember(id) || ordinal < 0 || !podReady(pods.get(ordinal))) return false;
        ClusterView v = views.get(ordinal);
        return v == null || (v.leaderId() == null && v.hasMember(id));
    }

    /**
     * What each pod's node answered when none reports itself leader (for status messages): its role and
     * the leader it knows, or why the operator could not read its view. Names the cause of a long
     * "no leader" spell: an election, a node that knows a leader the operator cannot reach, or an admin API
     * the operator cannot call.
     */
    public String withoutLeader() {
        List<String> each = new ArrayList<>();
        for (Integer ordinal : pods.keySet()) {
            ClusterView v = views.get(ordinal);
            String id = Names.nodeId(ordinal);
            if (v != null) each.add(id + " " + v.role() + (v.leaderId() == null ? ", knows no leader" : ", leader " + v.leaderId()) + " (term " + v.term() + ")");
            else if (unreachable.containsKey(ordinal)) each.add(id + " unreachable: " + abbreviate(unreachable.get(ordinal)));
            else each.add(id + " pod terminating");
        }
        return String.join("; ", each);
    }

    private static String abbreviate(String s) {
        return s == null || s.length() <= 160 ? String.valueOf(s) : s.substring(0, 160) + "…";
    }

    /** Why member {@code id} is not ready (for status messages). */
    public String notReadyReason(String id) {
        int ordinal = Names.ordinalOf(id);
        Pod p = pods.get(ordinal);
        if (p == null) return "no pod";
        if (terminating(p)) return "pod terminating";
        if (unreachable.containsKey(ordinal)) return "admin API unreachable";
        ClusterView v = views.get(ordinal);
        if (v == null) return "no answer";
        if (!v.hasMember(id)) return "not in the group";
        if (v.leaderId() == null) return "knows no leader";
        if (leaderView != null && leaderView.commitIndex() - v.appliedIndex() > CATCH_UP_LAG)
            return "lagging (applied " + v.appliedIndex() + " of " + leaderView.commitIndex() + ")";
        if (!podReady(p)) return "pod not ready";
        return "not ready";
    }

    /** The members that are not {@linkplain #ready ready}, each with why (for status messages); "none" when all are. */
    public String notReady() {
        return notReady(members().stream().filter(id -> !ready(id)).toList());
    }

    /** {@code ids}, each with why it is not ready (for status messages); "none" for no ids. */
    public String notReady(List<String> ids) {
        if (ids.isEmpty()) return "none";
        StringBuilder b = new StringBuilder();
        for (String id : ids) b.append(b.length() == 0 ? "" : ", ").append(id).append(" (").append(notReadyReason(id)).append(')');
        return b.toString();
    }

    public List<String> readyMembers() { return members().stream().filter(this::ready).toList(); }

    /** Each member's readiness, in ordinal order. */
    public Map<String, Boolean> readiness() {
        Map<String, Boolean> m = new LinkedHashMap<>();
        for (String id : members()) m.put(id, ready(id));
        return m;
    }

    public static int majority(int members) { return members / 2 + 1; }
}
