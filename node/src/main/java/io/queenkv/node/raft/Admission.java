package io.queenkv.node.raft;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.config.NodeConfig.InitialClusterState;

/**
 * How a member that holds no data of its group gets into it. Raft is only safe while every vote
 * and every acknowledgement comes from a member that still has its log, so a member never creates
 * its group from configuration unless the cluster is being created:
 *
 * <ul>
 *   <li><b>Data in storage</b>: Ratis recovered the group; nothing to do.</li>
 *   <li><b>A new cluster</b> ({@code QUEEN_KV_INITIAL_CLUSTER_STATE=new}, this node one of the initial
 *       peers): it asks every other initial peer's Raft port what it holds, and creates the group
 *       from the peer list only once <em>every</em> one has answered and none holds a group that has
 *       committed anything. A peer that does not answer may be the one with the data, so it waits.
 *       With {@code QUEEN_KV_RESTORE_FROM} the group starts from that backup; a member without it
 *       never creates an empty group beside a peer that restored one.</li>
 *   <li><b>Otherwise</b> (the cluster exists, {@code existing}, or this node is not an initial peer):
 *       it waits with no group, voting for nobody, until the leader re-admits it as a new
 *       incarnation ({@link Readmission}) or an admin adds it ({@link ClusterAdmin#addMember}).</li>
 * </ul>
 */
final class Admission implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Admission.class);
    private static final long PROBE_EVERY_MS = 1_000;

    /** Where this member stands; {@code /api/v1/cluster} shows it. */
    enum State {
        MEMBER("member"), WAITING_FOR_PEERS("waiting-for-peers"), WAITING_FOR_ADMISSION("waiting-for-admission");

        final String wire;

        State(String wire) { this.wire = wire; }
    }

    private final ReplicatedKv kv;
    private final MemberProbe probe;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "queen-kv-admission");
        t.setDaemon(true);
        return t;
    });
    private volatile State state;
    private String lastWaitReport = "";

    Admission(ReplicatedKv kv) {
        this.kv = kv;
        this.probe = new MemberProbe(kv);
        NodeConfig config = kv.config();
        if (kv.membership().isPresent()) {
            state = State.MEMBER;
        } else if (config.initialMember() && config.initialClusterState() == InitialClusterState.NEW) {
            state = State.WAITING_FOR_PEERS;
            timer.scheduleWithFixedDelay(this::tryToCreate, 0, PROBE_EVERY_MS, TimeUnit.MILLISECONDS);
        } else {
            waitForAdmission("QUEEN_KV_INITIAL_CLUSTER_STATE=" + config.initialClusterState().envValue()
                    + (config.initialMember() ? "" : " and this node is not one of QUEEN_KV_PEERS"));
        }
    }

    State state() {
        return state == State.MEMBER || kv.membership().isEmpty() ? state : State.MEMBER;
    }

    private void tryToCreate() {
        try {
            if (kv.membership().isPresent()) {
                state = State.MEMBER;
                timer.shutdown();
                return;
            }
            List<String> silent = new ArrayList<>();
            for (RaftPeer peer : ReplicatedKv.toPeers(kv.config().peers())) {
                if (peer.getId().equals(kv.selfId())) continue;
                MemberProbe.Holding holding = probe.probe(peer);
                if (holding instanceof MemberProbe.Holding.Holds h && h.established()) {
                    waitForAdmission(peer.getId() + " already holds this cluster (committed index " + h.committedIndex() + ")");
                    timer.shutdown();
                    return;
                }
                if (holding instanceof MemberProbe.Holding.Holds h && h.restored() && !h.established() && !kv.config().restoresOnCreation()) {
                    // Its state is the backup; one created empty here could outvote it and start a second history.
                    waitForAdmission(peer.getId() + " created this cluster from a backup; start every initial member with the same"
                            + " QUEEN_KV_RESTORE_FROM");
                    timer.shutdown();
                    return;
                }
                if (holding instanceof MemberProbe.Holding.Unreachable) silent.add(peer.getId().toString());
            }
            if (!silent.isEmpty()) {
                String report = "waiting for " + silent + " to answer before creating the cluster (any of them may hold its data)";
                if (!report.equals(lastWaitReport)) LOG.info(report);
                lastWaitReport = report;
                return;
            }
            create();
            timer.shutdown();
        } catch (Exception e) {
            LOG.warn("could not create the cluster yet: {}", e.getMessage());
        }
    }

    /** Creates the group on this server from the initial peer list, as every other initial peer does. */
    private void create() throws IOException {
        RaftGroup group = RaftGroup.valueOf(kv.groupId(), ReplicatedKv.toPeers(kv.config().peers()));
        if (kv.config().restoresOnCreation()) kv.restoreOnCreation(kv.config().restoreFrom());
        RaftClientReply reply = kv.server().groupManagement(GroupManagementRequest.newAdd(ClientId.randomId(), kv.selfId(), 0, group, true));
        if (!reply.isSuccess() && kv.membership().isEmpty()) throw ReplicatedKv.unavailable(reply.getException());
        state = State.MEMBER;
        LOG.info("created cluster {} with members {} (no peer held it yet){}", kv.identity().clusterId(),
                kv.config().peers().stream().map(NodeConfig.Peer::id).toList(),
                kv.config().restoresOnCreation() ? " from the backup " + kv.config().restoreFrom() : "");
    }

    private void waitForAdmission(String why) {
        state = State.WAITING_FOR_ADMISSION;
        try {
            kv.pendingReadmission().mark();
        } catch (IOException e) {
            LOG.warn("could not mark this member as waiting for re-admission ({}); a leader that stops half-way through"
                    + " re-admitting it may leave it outside the group", e.getMessage());
        }
        LOG.warn("this member holds no data of cluster {}: it waits, voting for nobody, until the leader admits it ({})",
                kv.identity().clusterId(), why);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
