package io.queenkv.operator.plan;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.model.Model;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.nodes.ClusterView;

/**
 * What a reconcile of cluster {@code kv} would observe, built without a cluster: members n0..n(k-1), each
 * with a ready pod on {@link #HASH} and a node that knows the leader (n0) and has applied all it commits.
 * Each method changes one thing.
 */
final class Group {
    static final String HASH = "h-current";
    static final KvSettings IN_FORCE = new KvSettings().maxValueBytes(65536).writeRate(100);

    private final List<String> members = new ArrayList<>();
    private final Set<String> notReady = new HashSet<>();
    private final Set<String> learners = new HashSet<>();
    private final List<String> readmitting = new ArrayList<>();
    private final Map<String, String> hashes = new HashMap<>();
    private final Set<Integer> podsOutsideTheGroup = new HashSet<>();
    private final Map<String, Instant> podNotReadySince = new HashMap<>();
    private String leader = "n0";

    static Group of(int members) {
        Group g = new Group();
        for (int k = 0; k < members; k++) g.members.add(Names.nodeId(k));
        return g;
    }

    /** The members in the leader's configuration, by id (gaps allowed). */
    static Group members(String... ids) {
        Group g = new Group();
        g.members.addAll(List.of(ids));
        return g;
    }

    Group leader(String id) {
        leader = id;
        return this;
    }

    /** No node reports itself leader (an election, or every admin API unreachable). */
    Group noLeader() {
        leader = null;
        return this;
    }

    /** Their pods are not Ready. */
    Group notReady(String... ids) {
        notReady.addAll(List.of(ids));
        return this;
    }

    /** Its pod is not Ready, its Ready condition False since {@code since} (the kubelet's lastTransitionTime). */
    Group podNotReadySince(String id, Instant since) {
        notReady.add(id);
        podNotReadySince.put(id, since);
        return this;
    }

    /** Their pods run another template. */
    Group onHash(String hash, String... ids) {
        for (String id : ids) hashes.put(id, hash);
        return this;
    }

    Group allOnHash(String hash) {
        return onHash(hash, members.toArray(String[]::new));
    }

    /** Being re-admitted after a lost disk: a learner if in the configuration, else only named by the leader. */
    Group readmitting(String id) {
        readmitting.add(id);
        if (members.contains(id)) learners.add(id);
        return this;
    }

    /** A pod whose node runs outside the group (started, not yet added). */
    Group podOutsideTheGroup(int ordinal) {
        podsOutsideTheGroup.add(ordinal);
        return this;
    }

    Observed observed() {
        long commit = 500;
        List<ClusterView.Member> config = members.stream().map(id -> new ClusterView.Member(id, id + ":6634", id + ":6632",
                learners.contains(id) ? ClusterView.LEARNER : id.equals(leader) ? "leader" : "follower")).toList();
        Map<Integer, Pod> pods = new TreeMap<>();
        Map<Integer, ClusterView> views = new TreeMap<>();
        ClusterView leaderView = null;
        for (String id : members) {
            int k = Names.ordinalOf(id);
            pods.put(k, pod(k, hashes.getOrDefault(id, HASH), !notReady.contains(id), podNotReadySince.get(id)));
            boolean leads = id.equals(leader);
            ClusterView v = new ClusterView(id, leads ? "leader" : "follower", 3, leader, config, commit, commit,
                    IN_FORCE, 7, leads ? readmitting : List.of());
            views.put(k, v);
            if (leads) leaderView = v;
        }
        for (int k : podsOutsideTheGroup) {
            pods.put(k, pod(k, HASH, false, null));
            views.put(k, new ClusterView(Names.nodeId(k), "follower", 0, null, List.of(), 0, 0, null, 0, List.of()));
        }
        return new Observed(pods, views, Map.of(), leaderView);
    }

    private static Pod pod(int ordinal, String hash, boolean ready, Instant transition) {
        return new PodBuilder().withNewMetadata().withName(Names.pod("kv", ordinal)).addToAnnotations(Model.POD_TEMPLATE_HASH_ANNOTATION, hash)
                .endMetadata()
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus(ready ? "True" : "False")
                .withLastTransitionTime(transition == null ? null : transition.toString()).endCondition()
                .endStatus().build();
    }
}
