package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.util.LifeCycle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.testing.LocalNode;

/**
 * A re-admission that a leader left half-way is finished by the leader in charge: here a member is
 * made a listener that holds the group (what a leader leaves when it dies after giving a re-admitted
 * member the group), with a configuration change sent straight to the leader, and the cluster must
 * make it a voter again by itself once it caught up. A member an operator removed stays removed,
 * a learner too.
 */
@Timeout(180)
class ReadmissionTest {
    @TempDir
    Path dir;
    List<LocalNode> nodes = List.of();

    @AfterEach
    void close() throws IOException {
        for (LocalNode n : nodes) n.close();
    }

    @Test
    void aListenerHoldingTheGroupVotesAgainOnceCaughtUp() throws IOException {
        nodes = LocalNode.startCluster(dir, 3, Map.of());
        LocalNode leader = leader();
        for (int i = 0; i < 100; i++) assertThat(put(leader, "k" + i).statusCode()).isEqualTo(200);
        LocalNode member = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        ReplicatedKv kv = leader.node.replicated();
        RaftConfiguration conf = kv.division().getRaftConf();
        RaftPeer peer = conf.getPeer(member.node.replicated().selfId());
        demote(kv, peer);

        await("the member to vote again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            RaftConfiguration now = kv.division().getRaftConf();
            return now.getPreviousPeers().isEmpty() && now.getPeer(peer.getId(), RaftPeerRole.FOLLOWER) != null;
        });
        String body = member.post("/api/v1/kv", "[{\"op\":\"getMany\",\"ns\":\"re\",\"keys\":[\"k0\",\"k99\"]}]").body();
        assertThat(body).contains("\"key\":\"k0\"").contains("\"key\":\"k99\"");
        assertThat(put(member, "after").statusCode()).isEqualTo(200);
    }

    @Test
    void aMemberRemovedOnPurposeStaysRemoved() throws IOException {
        nodes = LocalNode.startCluster(dir, 3, Map.of());
        LocalNode leader = leader();
        LocalNode member = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        String id = member.node.replicated().selfId().toString();
        assertThat(new ClusterAdmin(leader.node.replicated()).removeMember(id)).extracting(p -> p.getId().toString()).doesNotContain(id);

        // Longer than the leader waits between offers of the group to a member that lacks it.
        await("the removed member to stay out").pollDelay(Duration.ZERO).during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> leader.node.replicated().division().getRaftConf().getPeer(member.node.replicated().selfId(),
                        RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) == null);
    }

    /**
     * A node an admin adds starts without data, so it holds the mark of a member waiting to be
     * admitted until a committed configuration counts it as a voter. Removed as soon as it answers
     * ready (a scale-up followed at once by a scale-down), it must not take its removal for a
     * re-admission a leader left half-way and ask to be taken back in: the mark goes as the
     * configuration that added it is applied, not at the next round of the member's duties.
     */
    @Test
    void aMemberAnAdminAddedAndRemovedOnceItAnswersReadyStaysRemoved() throws IOException {
        nodes = LocalNode.startCluster(dir, 3, Map.of());
        LocalNode leader = leader();
        for (int i = 0; i < 20; i++) assertThat(put(leader, "k" + i).statusCode()).isEqualTo(200);
        Map<String, String> env = Map.of("QUEEN_KV_NODE_ID", "n4", "QUEEN_KV_PEERS", leader.env.get("QUEEN_KV_PEERS"),
                "QUEEN_KV_CLUSTER_ID", leader.env.get("QUEEN_KV_CLUSTER_ID"), "QUEEN_KV_INITIAL_CLUSTER_STATE", "existing");
        LocalNode added = LocalNode.startWithoutWaiting(dir.resolve("n4"), env);
        nodes = java.util.stream.Stream.concat(nodes.stream(), java.util.stream.Stream.of(added)).toList();
        PendingReadmission mark = new PendingReadmission(dir.resolve("n4"));
        assertThat(mark.marked()).as("a node without data that waits to be admitted").isTrue();

        ClusterAdmin admin = new ClusterAdmin(leader.node.replicated());
        admin.addMember(new NodeConfig.Peer("n4", "127.0.0.1", Integer.parseInt(added.env.get("QUEEN_KV_RAFT_PORT")),
                Integer.parseInt(added.env.get("QUEEN_KV_HTTP_PORT"))));
        added.awaitReady();
        assertThat(mark.marked()).as("the mark once the node answers ready").isFalse();
        assertThat(admin.removeMember("n4")).extracting(p -> p.getId().toString()).doesNotContain("n4");

        // Longer than a member waits between two requests to be taken back in.
        RaftPeerId n4 = RaftPeerId.valueOf("n4");
        await("the removed member to stay out").pollDelay(Duration.ZERO).during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> leader.node.replicated().division().getRaftConf().getPeer(n4, RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) == null);
    }

    /**
     * The same removal, with the member holding the mark of a re-admission not finished (what a
     * leader that died between taking it out and putting it back in leaves): it asks to be taken
     * back in, votes again, and clears the mark.
     */
    @Test
    void aMemberOutsideItsConfigurationThatWasBeingReadmittedAsksBackIn() throws IOException {
        nodes = LocalNode.startCluster(dir, 3, Map.of());
        LocalNode leader = leader();
        for (int i = 0; i < 20; i++) assertThat(put(leader, "k" + i).statusCode()).isEqualTo(200);
        LocalNode member = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        RaftPeerId id = member.node.replicated().selfId();
        PendingReadmission mark = new PendingReadmission(Path.of(member.env.get("QUEEN_KV_DATA_DIR")));
        new ClusterAdmin(leader.node.replicated()).removeMember(id.toString());
        mark.mark();

        await("the member to vote again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            RaftConfiguration now = leader.node.replicated().division().getRaftConf();
            return now.getPreviousPeers().isEmpty() && now.getPeer(id, RaftPeerRole.FOLLOWER) != null;
        });
        await("the mark to be cleared").atMost(Duration.ofSeconds(20)).until(() -> !mark.marked());
        String body = member.post("/api/v1/kv", "[{\"op\":\"getMany\",\"ns\":\"re\",\"keys\":[\"k0\",\"k19\"]}]").body();
        assertThat(body).contains("\"key\":\"k0\"").contains("\"key\":\"k19\"");
    }

    /**
     * Ratis closes a member's server for the group when it stands for election outside the
     * configuration (a member being re-admitted that a leader's leftover appender had fed). A member
     * waiting to be taken back in opens it again from its storage and catches up; one that is not
     * (a voter an admin removed, which Ratis closes the same way) stays closed.
     */
    @Test
    void aMemberWaitingToBeTakenBackInOpensItsClosedGroupAgain() throws IOException {
        nodes = LocalNode.startCluster(dir, 3, Map.of());
        LocalNode leader = leader();
        for (int i = 0; i < 20; i++) assertThat(put(leader, "k" + i).statusCode()).isEqualTo(200);
        LocalNode member = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        ReplicatedKv kv = member.node.replicated();
        kv.division().close();
        assertThat(kv.server().getDivision(kv.groupId()).getInfo().getLifeCycleState()).isEqualTo(LifeCycle.State.CLOSED);

        await("an unmarked member to stay closed").pollDelay(Duration.ZERO).during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                .until(() -> kv.server().getDivision(kv.groupId()).getInfo().getLifeCycleState() == LifeCycle.State.CLOSED);

        PendingReadmission mark = new PendingReadmission(Path.of(member.env.get("QUEEN_KV_DATA_DIR")));
        mark.mark();
        for (int i = 20; i < 40; i++) assertThat(put(leader, "k" + i).statusCode()).isEqualTo(200);
        await("the member to run its group again").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> kv.membership().isPresent());
        await("the mark to be cleared").atMost(Duration.ofSeconds(20)).until(() -> !mark.marked());
        String body = member.post("/api/v1/kv", "[{\"op\":\"getMany\",\"ns\":\"re\",\"keys\":[\"k0\",\"k39\"]}]").body();
        assertThat(body).contains("\"key\":\"k0\"").contains("\"key\":\"k39\"");
    }

    /**
     * A learner removed on purpose while it holds the group stays out: it sets its copy aside, so no
     * leader takes it for one left half-way through a re-admission.
     */
    @Test
    void aLearnerRemovedOnPurposeStaysRemoved() throws IOException {
        nodes = LocalNode.startCluster(dir, 3, Map.of());
        LocalNode leader = leader();
        LocalNode member = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        ReplicatedKv kv = leader.node.replicated();
        RaftPeer peer = kv.division().getRaftConf().getPeer(member.node.replicated().selfId());
        demote(kv, peer);
        new ClusterAdmin(kv).removeMember(peer.getId().toString());

        await("the removed learner to stay out").pollDelay(Duration.ZERO).during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> kv.division().getRaftConf().getPeer(peer.getId(), RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) == null);
        assertThat(member.node.replicated().membership()).as("the learner set the group aside").isEmpty();
    }

    /**
     * One follower is down and the other lost its data while the third still leads (it leads on for
     * up to an election timeout after it last heard from a majority). A demotion started now could
     * never commit, and its entry, left last in the leader's log, would need the blank member's vote
     * in every later election: the cluster could not recover even once the stopped member came back.
     * So the leader demotes no one while the voters that hold data are no majority, and once the
     * stopped member returns the blank one is re-admitted with every key.
     */
    @Test
    void aLeaderWithoutAMajorityOfIntactVotersDemotesNoOne() throws IOException {
        TwoFollowersDown down = twoFollowersDown();
        ReplicatedKv kv = down.leader().node.replicated();
        assertThat(kv.division().getInfo().isLeader()).as("still leading when the round runs").isTrue();

        new Readmission(kv).run(kv.division());

        RaftConfiguration conf = kv.division().getRaftConf();
        assertThat(conf.getPreviousPeers()).as("no change under way").isEmpty();
        assertThat(conf.getCurrentPeers(RaftPeerRole.FOLLOWER)).as("every voter kept").hasSize(3);
        assertThat(conf.getCurrentPeers(RaftPeerRole.LISTENER)).as("no one demoted").isEmpty();

        nodes.set(nodes.indexOf(down.stopped()), LocalNode.restart(down.stopped()));
        awaitVotingAgain(down.blank());
        await("every key on the re-admitted member").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(down.blank().post("/api/v1/kv", "[{\"op\":\"getMany\",\"ns\":\"re\",\"keys\":[\"k0\",\"k19\"]}]").body())
                        .contains("\"key\":\"k0\"").contains("\"key\":\"k19\""));
    }

    /**
     * The same two followers, one blank and one back from a restart just as the leader is about to lose
     * its majority: the member answers holding the group before the leader has heard from it again (its
     * appender is still backing off). A round run then must not count it: the change could not commit if
     * the leader lost its majority before the member followed, and left last in its log it could block
     * later elections (a full run of the node's tests once left the cluster without a leader for the
     * remaining 90 s this way). Once the member follows, the blank one is re-admitted.
     */
    @Test
    void aMemberThatAnswersButDoesNotFollowYetIsNotCounted() throws IOException {
        TwoFollowersDown down = twoFollowersDown();
        ReplicatedKv kv = down.leader().node.replicated();
        nodes.set(nodes.indexOf(down.stopped()), LocalNode.restart(down.stopped()));
        assertThat(kv.division().getInfo().isLeader()).as("still leading when the round runs").isTrue();

        new Readmission(kv).run(kv.division());

        // Not heard from for an election timeout's minimum after the round: it did not follow when the round ran
        // (almost always so: the leader's appender waits after the failures of the member's downtime).
        RaftPeerId restartedId = down.stopped().node.replicated().selfId();
        long heardMsAgo = kv.division().getInfo().getRoleInfoProto().getLeaderInfo().getFollowerInfoList().stream()
                .filter(f -> f.getId().getId().toStringUtf8().equals(restartedId.toString()))
                .mapToLong(f -> f.getLastRpcElapsedTimeMs()).findFirst().orElse(Long.MAX_VALUE);
        if (heardMsAgo >= 1_000) {
            RaftConfiguration conf = kv.division().getRaftConf();
            assertThat(conf.getPreviousPeers()).as("no change under way (%s not heard from for %d ms)", restartedId, heardMsAgo).isEmpty();
            assertThat(conf.getCurrentPeers(RaftPeerRole.LISTENER)).as("no one demoted").isEmpty();
        }
        awaitVotingAgain(down.blank());
    }

    /** A leader of three with 20 keys, one follower stopped, then the other's group removed (its disk lost, the node up). */
    private record TwoFollowersDown(LocalNode leader, LocalNode stopped, LocalNode blank) {}

    private TwoFollowersDown twoFollowersDown() throws IOException {
        nodes = new ArrayList<>(LocalNode.startCluster(dir, 3, Map.of()));
        LocalNode leader = leader();
        for (int i = 0; i < 20; i++) assertThat(put(leader, "k" + i).statusCode()).isEqualTo(200);
        List<LocalNode> followers = nodes.stream().filter(n -> n != leader).toList();
        LocalNode stopped = followers.get(0), blank = followers.get(1);
        // Down first, so that no round ever sees one blank member beside two that hold data.
        stopped.close();
        ReplicatedKv lost = blank.node.replicated();
        RaftClientReply removed = lost.server().groupManagement(
                GroupManagementRequest.newRemove(ClientId.randomId(), lost.selfId(), 0, lost.groupId(), true, false));
        assertThat(removed.isSuccess()).as("the group removed from %s", lost.selfId()).isTrue();
        return new TwoFollowersDown(leader, stopped, blank);
    }

    /** Waits until a ready leader counts {@code member}, which lost its group, as a voter again. */
    private void awaitVotingAgain(LocalNode member) {
        ReplicatedKv kv = member.node.replicated();
        await("the blank member to vote again").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
            RaftConfiguration now = readyLeader().map(n -> n.node.replicated().division().getRaftConf()).orElse(null);
            return now != null && now.getPreviousPeers().isEmpty() && now.getPeer(kv.selfId(), RaftPeerRole.FOLLOWER) != null
                    && kv.membership().isPresent();
        });
    }

    /** Makes a voter a listener with a configuration change sent straight to the leader. */
    private static void demote(ReplicatedKv kv, RaftPeer peer) throws IOException {
        RaftConfiguration conf = kv.division().getRaftConf();
        List<RaftPeer> voters = new ArrayList<>(conf.getCurrentPeers(RaftPeerRole.FOLLOWER));
        List<RaftPeer> others = voters.stream().filter(p -> !p.getId().equals(peer.getId())).toList();
        try (RaftClient toLeader = kv.newClient(List.of(kv.division().getPeer()), RetryPolicies.noRetry())) {
            assertThat(toLeader.admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
                    .setServersInCurrentConf(voters).setListenersInCurrentConf(List.of())
                    .setServersInNewConf(others).setListenersInNewConf(List.of(Readmission.withRole(peer, RaftPeerRole.LISTENER)))
                    .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET).build()).isSuccess()).isTrue();
        }
        assertThat(kv.division().getRaftConf().getPeer(peer.getId(), RaftPeerRole.LISTENER)).as("demoted").isNotNull();
    }

    private LocalNode leader() {
        return await().atMost(Duration.ofSeconds(30)).until(this::readyLeader, java.util.Optional::isPresent).orElseThrow();
    }

    /** The node whose term as leader is ready, if one is now. */
    private java.util.Optional<LocalNode> readyLeader() {
        return nodes.stream().filter(n -> n.node.replicated().membership().map(d -> d.getInfo().isLeaderReady()).orElse(false)).findFirst();
    }

    private static java.net.http.HttpResponse<String> put(LocalNode node, String key) {
        return node.post("/api/v1/kv", "[{\"op\":\"put\",\"ns\":\"re\",\"key\":\"" + key + "\",\"value\":1,\"forever\":true}]");
    }
}
