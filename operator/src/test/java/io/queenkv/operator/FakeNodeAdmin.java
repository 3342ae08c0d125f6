package io.queenkv.operator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.queenkv.operator.crd.KvSettings;
import io.queenkv.operator.crd.QueenKvCluster;
import io.queenkv.operator.model.Names;
import io.queenkv.operator.nodes.ClusterView;
import io.queenkv.operator.nodes.NodeAdmin;
import io.queenkv.operator.nodes.NodeAdminException;

/**
 * A Raft group in memory, standing in for the nodes of one cluster: which node processes run (the
 * {@link PodSimulator} starts and stops them with their pods), the members, the leader, the commit index,
 * the settings and their index. A node started with its id in {@code QUEEN_KV_PEERS} forms the group with
 * those peers; one started outside it waits to be added. The leader is the lowest running member while a
 * majority runs. Knobs: {@link #lag} (applied far behind the commit: not ready), {@link #fail} (its admin
 * API does not answer), {@link #loseDisk} / {@link #readdAsLearner} / {@link #promote} (the node's
 * re-admission of a member that lost its disk). Every admin call and process start/stop goes to the shared {@link #events} log.
 */
final class FakeNodeAdmin implements NodeAdmin {
    static final long LAGGING_BY = 5000;

    private final List<String> events;
    private final Set<Integer> running = new HashSet<>();
    private final Set<Integer> lagging = new HashSet<>();
    private final Set<Integer> failing = new HashSet<>();
    /** Members that do not vote. */
    private final Set<String> learners = new HashSet<>();
    /** Ids being re-admitted after a lost disk (as the leader reports them). */
    private final List<String> readmitting = new ArrayList<>();
    /** Member id → {raftAddress, httpAddress}, in the order they joined. */
    private final Map<String, String[]> members = new LinkedHashMap<>();
    private String leader;
    private long term = 1;
    private long commitIndex = 10;
    private KvSettings settings = new KvSettings().maxOpsPerCall(256).maxKeysPerCall(1024).maxValueBytes(65536)
            .maxBodyBytes(33554432L).writeRate(100).readRate(200);
    private long settingsIndex = 1;

    FakeNodeAdmin(List<String> events) {
        this.events = events;
    }

    // ---- the "processes", driven by the pod simulator

    /** A node process starts with {@code QUEEN_KV_PEERS} = {@code peers} ({@code id=host:raft:http,…}). */
    synchronized void start(int ordinal, String peers) {
        running.add(ordinal);
        String id = Names.nodeId(ordinal);
        if (members.isEmpty() && peers != null && peers.contains(id + "=")) {
            for (String p : peers.split(",")) {
                String[] idAndAddress = p.split("=", 2);
                String[] hostPorts = idAndAddress[1].split(":");
                members.put(idAndAddress[0], new String[] {hostPorts[0] + ":" + hostPorts[1], hostPorts[0] + ":" + hostPorts[2]});
            }
        }
        events.add("started n" + ordinal);
        elect();
    }

    synchronized void stop(int ordinal) {
        running.remove(ordinal);
        events.add("stopped n" + ordinal);
        elect();
    }

    synchronized void lag(int ordinal, boolean on) {
        if (on) lagging.add(ordinal);
        else lagging.remove(ordinal);
    }

    /** Its admin API times out while the node itself serves (and its readiness probe passes). */
    private final Set<Integer> slow = new HashSet<>();

    synchronized void slowAdmin(int ordinal, boolean on) {
        if (on) slow.add(ordinal);
        else slow.remove(ordinal);
    }

    synchronized void fail(int ordinal, boolean on) {
        if (on) failing.add(ordinal);
        else failing.remove(ordinal);
        elect();
    }

    /** The node notices that {@code id} lost its disk: it leaves the configuration and is listed as re-admitting. */
    synchronized void loseDisk(String id) {
        members.remove(id);
        commitIndex++;
        readmitting.add(id);
        events.add("lost disk " + id);
    }

    /** The leader adds it back as a learner (not voting, catching up). */
    synchronized void readdAsLearner(String id, String raftAddress, String httpAddress) {
        members.put(id, new String[] {raftAddress, httpAddress});
        learners.add(id);
        commitIndex++;
    }

    /** Caught up: a voter again, no longer re-admitting. */
    synchronized void promote(String id) {
        learners.remove(id);
        readmitting.remove(id);
        commitIndex++;
    }

    /**
     * A leader took {@code id} out to re-admit it and died before taking it back in: the new leader has it
     * neither in the configuration nor among those it re-admits.
     */
    synchronized void dropOut(String id) {
        members.remove(id);
        learners.remove(id);
        readmitting.remove(id);
        commitIndex++;
        events.add("dropped out " + id);
    }

    /** Makes {@code id} the leader (as an election might). */
    synchronized void forceLeader(String id) {
        leader = id;
        term++;
    }

    synchronized String leader() { return leader; }

    synchronized List<String> members() { return new ArrayList<>(members.keySet()); }

    synchronized KvSettings settings() { return settings; }

    /** The lowest running, answering member becomes leader while a majority of members runs; no leader otherwise. */
    private void elect() {
        List<String> alive = members.keySet().stream().filter(this::alive).sorted(Comparator.comparingInt(Names::ordinalOf)).toList();
        if (alive.size() < members.size() / 2 + 1) {
            leader = null;
        } else if (leader == null || !alive.contains(leader)) {
            leader = alive.get(0);
            term++;
        }
    }

    private boolean alive(String id) {
        int o = Names.ordinalOf(id);
        return running.contains(o) && !failing.contains(o);
    }

    private void reachable(int ordinal) {
        if (!running.contains(ordinal) || failing.contains(ordinal))
            throw new NodeAdminException("n" + ordinal + ": connection refused", 0);
    }

    private void viaLeader(int ordinal, String call) {
        reachable(ordinal);
        if (!Names.nodeId(ordinal).equals(leader))
            throw new NodeAdminException(call + " sent to n" + ordinal + ", not the leader " + leader, 503);
    }

    // ---- NodeAdmin

    @Override
    public synchronized ClusterView cluster(QueenKvCluster c, int ordinal) {
        reachable(ordinal);
        if (slow.contains(ordinal)) throw new NodeAdminException("n" + ordinal + ": request timed out", 0);
        String id = Names.nodeId(ordinal);
        if (!members.containsKey(id))
            return new ClusterView(id, "learner", 0, null, List.of(), 0, 0, settings, settingsIndex, List.of());
        List<ClusterView.Member> list = members.entrySet().stream()
                .map(e -> new ClusterView.Member(e.getKey(), e.getValue()[0], e.getValue()[1], role(e.getKey())))
                .toList();
        long applied = lagging.contains(ordinal) || learners.contains(id) ? commitIndex - LAGGING_BY : commitIndex;
        return new ClusterView(id, role(id), term, leader, list, commitIndex, applied, settings, settingsIndex,
                id.equals(leader) ? List.copyOf(readmitting) : List.of());
    }

    private String role(String id) {
        return id.equals(leader) ? "leader" : learners.contains(id) ? ClusterView.LEARNER : "follower";
    }

    @Override
    public synchronized boolean ready(QueenKvCluster c, int ordinal) {
        return running.contains(ordinal) && !failing.contains(ordinal) && !lagging.contains(ordinal)
                && members.containsKey(Names.nodeId(ordinal)) && !learners.contains(Names.nodeId(ordinal)) && leader != null;
    }

    @Override
    public synchronized List<ClusterView.Member> addMember(QueenKvCluster c, int viaOrdinal, String id, String raftAddress, String httpAddress) {
        viaLeader(viaOrdinal, "addMember");
        reachable(Names.ordinalOf(id));
        events.add("addMember " + id + " via n" + viaOrdinal);
        if (members.putIfAbsent(id, new String[] {raftAddress, httpAddress}) == null) commitIndex++;
        return cluster(c, viaOrdinal).members();
    }

    @Override
    public synchronized List<ClusterView.Member> removeMember(QueenKvCluster c, int viaOrdinal, String id) {
        viaLeader(viaOrdinal, "removeMember");
        if (!members.containsKey(id)) throw new NodeAdminException("no member '" + id + "'", 404);
        events.add("removeMember " + id + " via n" + viaOrdinal);
        if (id.equals(leader)) transferLeadership(c, viaOrdinal, null);
        members.remove(id);
        commitIndex++;
        return cluster(c, Names.ordinalOf(leader)).members();
    }

    @Override
    public synchronized String transferLeadership(QueenKvCluster c, int viaOrdinal, String to) {
        viaLeader(viaOrdinal, "transferLeadership");
        String target = to != null ? to : members.keySet().stream().filter(m -> !m.equals(leader) && alive(m)).findFirst().orElseThrow();
        events.add("transferLeadership " + leader + "->" + target);
        leader = target;
        term++;
        return target;
    }

    @Override
    public synchronized SettingsChange changeSettings(QueenKvCluster c, int viaOrdinal, KvSettings s) {
        reachable(viaOrdinal);
        events.add("changeSettings via n" + viaOrdinal);
        KvSettings next = new KvSettings()
                .maxOpsPerCall(s.getMaxOpsPerCall() != null ? s.getMaxOpsPerCall() : settings.getMaxOpsPerCall())
                .maxKeysPerCall(s.getMaxKeysPerCall() != null ? s.getMaxKeysPerCall() : settings.getMaxKeysPerCall())
                .maxValueBytes(s.getMaxValueBytes() != null ? s.getMaxValueBytes() : settings.getMaxValueBytes())
                .maxBodyBytes(s.getMaxBodyBytes() != null ? s.getMaxBodyBytes() : settings.getMaxBodyBytes())
                .writeRate(s.getWriteRate() != null ? s.getWriteRate() : settings.getWriteRate())
                .readRate(s.getReadRate() != null ? s.getReadRate() : settings.getReadRate());
        commitIndex++;
        settings = next;
        settingsIndex = commitIndex;
        return new SettingsChange(next, settingsIndex);
    }
}
