package io.queenkv.node;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.access.Access;
import io.queenkv.node.api.Timestamps;
import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.http.HttpServer;
import io.queenkv.node.identity.DataDirStamp;
import io.queenkv.node.identity.MemberIdentity;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.SnapshotCodec;
import io.queenkv.node.raft.ClusterAdmin;
import io.queenkv.node.raft.LeaderDuties;
import io.queenkv.node.raft.ReplicatedKv;
import io.queenkv.node.tls.NodeTls;

/** One Queen KV node: the Raft member with its state machine, the leader's timers, the HTTP API. */
public final class Node implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Node.class);
    private static final long HAND_OFF_TIMEOUT_MS = 5_000;

    private final ReplicatedKv kv;
    private final LeaderDuties duties;
    private final HttpServer http;

    public Node(NodeConfig config) throws IOException {
        Access access = config.tokensFile() == null ? Access.open() : Access.fromFile(config.tokensFile());
        DataDirStamp.Opened stamp = DataDirStamp.open(config.dataDir(), config.clusterId(), config.nodeId(), config.lone());
        MemberIdentity identity = stamp.identity();
        if (stamp.fresh()) LOG.info("new data dir: member {} of cluster {}, incarnation {}", identity.nodeId(), identity.clusterId(), identity.incarnation());
        if (config.restoresOnCreation() && !Files.exists(config.dataDir().resolve(identity.groupUuid().toString()))) checkBackup(config);
        NodeTls tls = config.tls() == null ? null : NodeTls.load(config.tls());
        if (config.raftOpenToOtherHosts())
            LOG.warn("NO TLS: the Raft port {}:{} accepts unauthenticated, unencrypted peers from other hosts; anyone who reaches it "
                    + "can join the cluster or read its data. Set QUEEN_KV_TLS_CERT_FILE, QUEEN_KV_TLS_KEY_FILE and QUEEN_KV_TLS_CA_FILE, "
                    + "or bind to loopback.", config.bindAddress(), config.raftPort());
        this.kv = new ReplicatedKv(config, identity, tls, Node::wallClockMicros);
        this.duties = new LeaderDuties(kv, Node::wallClockMicros, 1_000);
        this.http = new HttpServer(kv, access, config.bindAddress(), config.httpPort(), tls, config.metricsRequireToken(), config.callBounds());
        LOG.info("node {} of cluster {} serving {} on {}:{} and Raft{} on :{}, data in {}, peers {}", config.nodeId(),
                identity.clusterId(), tls == null ? "HTTP" : "HTTPS", config.bindAddress(), http.port(),
                tls == null ? "" : " (mutual TLS)", config.raftPort(), config.dataDir().toAbsolutePath(), config.peers());
    }

    /** A backup the cluster is to be created from is read whole (its checksum too) before anything starts. */
    private static void checkBackup(NodeConfig config) {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(config.restoreFrom()), 1 << 16)) {
            KvEngine state = SnapshotCodec.read(in, config.seedSettings());
            LOG.info("QUEEN_KV_RESTORE_FROM={}: a backup of {} keys; the cluster is created from it", config.restoreFrom(), state.keyCount());
        } catch (IOException e) {
            throw new NodeConfig.ConfigException("QUEEN_KV_RESTORE_FROM=" + config.restoreFrom() + " is not a backup this node can restore: "
                    + e.getMessage());
        }
    }

    public int httpPort() {
        return http.port();
    }

    public ReplicatedKv replicated() {
        return kv;
    }

    /** A stopping leader hands leadership to another member first, so writes barely pause. */
    private void handOffLeadership() {
        try {
            var d = kv.membership();
            if (d.isEmpty() || !d.get().getInfo().isLeader() || d.get().getRaftConf().getCurrentPeers().size() < 2) return;
            // Bounded: when the whole cluster stops at once there is nobody to take over.
            String to = new ClusterAdmin(kv).transferLeadership(null, HAND_OFF_TIMEOUT_MS);
            LOG.info("handed leadership to {} before stopping", to);
        } catch (Exception e) {
            LOG.warn("could not hand leadership away before stopping: {}", e.toString());
        }
    }

    static long wallClockMicros() {
        return Timestamps.toMicros(java.time.Instant.now());
    }

    @Override
    public void close() throws IOException {
        handOffLeadership();
        http.close();
        duties.close();
        kv.close();
        LOG.info("node {} stopped cleanly", kv.selfId());
    }
}
