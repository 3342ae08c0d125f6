package io.queenkv.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queenkv.e2e.harness.ClusterLogsOnFailure;
import io.queenkv.e2e.harness.KvHttp;
import io.queenkv.e2e.harness.NodeProcessCluster;

/**
 * Members that lose their disk, and nodes that do not belong: a Raft store must never forget an
 * acknowledged write. A member restarted on an empty data dir with its old environment must never
 * vote; with a quorum of intact members the leader re-admits it as a new incarnation, and without
 * one the cluster stays unavailable rather than answer from a blank log.
 */
@Timeout(300)
class LostDiskTest {
    static final String NS = "lostdisk";
    static final int KEYS = 1_000;
    static final Duration REPAIR_BUDGET = Duration.ofSeconds(60);

    @RegisterExtension
    final ClusterLogsOnFailure logs = new ClusterLogsOnFailure();
    final KvHttp http = new KvHttp(Duration.ofSeconds(3));
    NodeProcessCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) cluster.close();
    }

    private NodeProcessCluster startCluster() {
        return logs.watch(new NodeProcessCluster(3, Map.of("QUEEN_KV_WRITE_RATE", "100000", "QUEEN_KV_READ_RATE", "100000"))).start();
    }

    @Test
    void aFollowerThatLostItsDiskIsReadmittedAndServesEveryKey() {
        cluster = startCluster();
        Map<String, Long> written = writeKeys(cluster.url(cluster.leaderId()), "k", KEYS);
        String follower = cluster.anyFollower();
        String oldIncarnation = status(follower).path("incarnation").asText();
        List<String> urls = cluster.ids().stream().map(cluster::url).toList();
        try (AckedWriter writer = new AckedWriter(NS, "w", () -> urls, Duration.ofSeconds(3)).start()) {
            writer.awaitAcksSince(0, 20, Duration.ofSeconds(20));

            cluster.kill9(follower);
            cluster.wipe(follower);
            cluster.restartNoWait(follower);
            // Re-admitted with no manual step: a learner first, then a voter again once caught up.
            awaitVotingAgain(follower);
            cluster.awaitReady(follower, NodeProcessCluster.READY_TIMEOUT);
            writer.awaitAcksSince(System.nanoTime(), 20, Duration.ofSeconds(20));
            writer.stop();
            ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));

            assertThat(status(follower).path("incarnation").asText()).as("a new incarnation").isNotEqualTo(oldIncarnation);
            assertEveryKeyOn(cluster.url(follower), "k", written);
            writer.assertNoneLost(cluster.url(follower));
            assertNewVersionsAreFresh(cluster.url(follower), written);
            assertThat(cluster.ids()).as("a leader logged the repair")
                    .anyMatch(id -> ClusterChecks.log(cluster, id).contains("re-admitted as a new incarnation"));
        }
    }

    /**
     * The repair takes the member out of the configuration and back in; a leader may die in between.
     * Here the re-admitted member stops (SIGSTOP) once the leader logged that the member took the
     * group, so the leader, having taken it out, waits for it to catch up; that leader is killed as
     * soon as it shows the member outside. A later leader must take the member back in once it runs
     * again, with no manual step.
     */
    /**
     * The leader dies between taking the re-admitted member out of the configuration and putting it
     * back in, while the member is stopped; the member then comes back as it was, or restarts (Ratis
     * then starts it as a server outside the group).
     */
    @ParameterizedTest(name = "the member {0}")
    @ValueSource(strings = {"resumes", "restarts"})
    void aLeaderThatDiesHalfWayThroughARepairLeavesItToTheNextOne(String then) {
        boolean restarts = then.equals("restarts");
        cluster = startCluster();
        Map<String, Long> written = writeKeys(cluster.url(cluster.leaderId()), "k", KEYS);
        String member = cluster.anyFollower();
        List<String> others = cluster.ids().stream().filter(id -> !id.equals(member)).toList();
        cluster.kill9(member);
        cluster.wipe(member);
        cluster.restartNoWait(member);
        await(member + " to be given the group").atMost(REPAIR_BUDGET).pollInterval(Duration.ofMillis(5))
                .until(() -> others.stream().anyMatch(id -> ClusterChecks.log(cluster, id).contains("gave member " + member + " the group")));
        cluster.pause(member);
        String leader = await("a leader that took " + member + " out of the configuration").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> others.stream().filter(id -> {
                    JsonNode s = status(id);
                    return "leader".equals(s.path("role").asText()) && roleOf(s, member).equals("absent");
                }).findFirst(), java.util.Optional::isPresent).orElseThrow();
        cluster.kill9(leader);
        if (restarts) {
            cluster.kill9(member);
            cluster.restartNoWait(member);
        } else {
            cluster.resume(member);
        }
        cluster.restartNoWait(leader);

        awaitVotingAgain(member);
        cluster.awaitReady(leader, NodeProcessCluster.READY_TIMEOUT);
        ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
        assertEveryKeyOn(cluster.url(member), "k", written);
        assertNewVersionsAreFresh(cluster.url(member), written);
    }

    static Stream<Arguments> twoMembersLoseTheirDisks() {
        return Stream.of(Arguments.of("two followers", false), Arguments.of("the leader and a follower", true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("twoMembersLoseTheirDisks")
    void withoutAQuorumOfIntactMembersTheClusterWaitsAndForgetsNothing(String what, boolean leaderToo) {
        cluster = startCluster();
        String leader = cluster.leaderId();
        Map<String, Long> written = writeKeys(cluster.url(leader), "k", KEYS);
        List<String> followers = cluster.ids().stream().filter(id -> !id.equals(leader)).toList();
        List<String> wiped = leaderToo ? List.of(leader, followers.get(0)) : followers;
        String intact = cluster.ids().stream().filter(id -> !wiped.contains(id)).findFirst().orElseThrow();

        Map<String, Path> lostDisks = new LinkedHashMap<>();
        for (String id : wiped) cluster.kill9(id);
        for (String id : wiped) lostDisks.put(id, cluster.wipe(id));
        for (String id : wiped) cluster.restartNoWait(id);
        for (String id : wiped) cluster.awaitHealthy(id, NodeProcessCluster.READY_TIMEOUT);

        // Two blank members must not elect each other: no write is acknowledged, no read answers.
        List<String> urls = cluster.ids().stream().map(cluster::url).toList();
        await("the cluster to stay unavailable").pollDelay(Duration.ZERO).during(Duration.ofSeconds(12))
                .atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500)).until(() -> {
                    for (String url : urls) {
                        KvHttp.Reply write = http.put(url, NS, "after-loss", KvHttp.value(1));
                        if (write.ok()) throw new AssertionError("a write was acknowledged on " + url + ": " + write);
                        KvHttp.Reply read = http.get(url, NS, "k1");
                        if (read.ok()) throw new AssertionError("a read was answered on " + url + ": " + read);
                    }
                    return true;
                });
        // Either way it holds no group and votes for nobody: it found the intact member holding the
        // cluster, or a peer has not answered its probe yet (then it never creates the cluster either).
        for (String id : wiped)
            assertThat(status(id).path("membership").asText()).as(id + " holds no group").isIn("waiting-for-admission", "waiting-for-peers");
        ClusterChecks.say("%s lost their disks: the cluster answered nothing for 12 s", wiped);

        // One lost disk comes back: a quorum of intact members again, so the cluster serves, has
        // every acknowledged key, gives out no version twice, and re-admits the other blank member.
        String returned = wiped.get(0), stillBlank = wiped.get(1);
        cluster.stop(returned);
        cluster.restoreDataDir(returned, lostDisks.get(returned));
        cluster.restartNoWait(returned);
        awaitVotingAgain(stillBlank);
        ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
        for (String id : List.of(intact, returned, stillBlank)) assertEveryKeyOn(cluster.url(id), "k", written);
        assertNewVersionsAreFresh(cluster.url(stillBlank), written);
    }

    @Test
    void nodesOfAnotherClusterAndDataDirsOfAnotherMemberAreRefused() {
        cluster = startCluster();
        Map<String, Long> written = writeKeys(cluster.url(cluster.leaderId()), "k", 200);
        String member = cluster.anyFollower();
        String clusterId = cluster.clusterId();

        // Its own data dir under another cluster id: refused at start, with exit code 3.
        cluster.stop(member);
        cluster.setEnv(member, "QUEEN_KV_CLUSTER_ID", "another-cluster");
        assertThat(cluster.runUntilExit(member, Duration.ofSeconds(60))).isEqualTo(3);
        assertThat(ClusterChecks.log(cluster, member)).contains("belongs to cluster " + clusterId);

        // Its data dir under another member id: refused too.
        cluster.setEnv(member, "QUEEN_KV_CLUSTER_ID", clusterId);
        cluster.setEnv(member, "QUEEN_KV_NODE_ID", "n9");
        assertThat(cluster.runUntilExit(member, Duration.ofSeconds(60))).isEqualTo(3);
        assertThat(ClusterChecks.log(cluster, member)).contains("belongs to member " + member);
        cluster.setEnv(member, "QUEEN_KV_NODE_ID", member);

        // A node of another cluster on this member's address, with the same peer list: the cluster
        // does not take it for its member, and it cannot take this cluster's group.
        cluster.wipe(member);
        cluster.setEnv(member, "QUEEN_KV_CLUSTER_ID", "another-cluster");
        cluster.restartNoWait(member);
        cluster.awaitHealthy(member, NodeProcessCluster.READY_TIMEOUT);
        String leaderUrl = cluster.url(cluster.leaderId());
        for (int i = 0; i < 20; i++) assertThat(http.put(leaderUrl, NS, "during-" + i, KvHttp.value(i)).ok()).isTrue();
        await("the stranger to stay outside").pollDelay(Duration.ZERO).during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    JsonNode stranger = status(member);
                    if (!stranger.path("clusterId").asText().equals("another-cluster")) throw new AssertionError("stranger: " + stranger);
                    if (http.get(cluster.url(member), NS, "k1").ok()) throw new AssertionError("the stranger served one of our keys");
                    return true;
                });
        // A member answering without our group votes no more: it is kept as a learner that never takes the group.
        await(member + " to be a learner").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250)).until(() -> {
            JsonNode leader = leaderStatus();
            return leader != null && leader.path("clusterId").asText().equals(clusterId) && roleOf(leader, member).equals("learner");
        });
        assertThat(leaderStatus().path("readmitting")).extracting(JsonNode::asText).containsExactly(member);

        // The real member comes back, on a new disk: it is re-admitted and has everything.
        cluster.stop(member);
        cluster.setEnv(member, "QUEEN_KV_CLUSTER_ID", clusterId);
        cluster.wipe(member);
        cluster.restartNoWait(member);
        awaitVotingAgain(member);
        ClusterChecks.awaitConverged(cluster, cluster.ids(), Duration.ofSeconds(30));
        assertEveryKeyOn(cluster.url(member), "k", written);
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** Writes {@code count} keys in calls of 100 puts; answers key → acknowledged version. */
    private Map<String, Long> writeKeys(String url, String prefix, int count) {
        Map<String, Long> versions = new LinkedHashMap<>();
        for (int from = 1; from <= count; from += 100) {
            ArrayNode ops = JsonNodeFactory.instance.arrayNode();
            for (int i = from; i < from + 100 && i <= count; i++) ops.add(KvHttp.opPut(NS, prefix + i, KvHttp.value(i)));
            ObjectNode body = JsonNodeFactory.instance.objectNode();
            body.set("operations", ops);
            KvHttp.Reply r = http.batch(url, body);
            assertThat(r.ok()).as("write call: %s", r).isTrue();
            for (JsonNode result : r.body().path("results")) versions.put(result.path("key").asText(), result.path("version").asLong());
        }
        return versions;
    }

    /** Every written key is on the node with the version it was acknowledged with. */
    private static void assertEveryKeyOn(String url, String prefix, Map<String, Long> written) {
        Map<String, JsonNode> rows = ClusterChecks.readAll(url, NS, new ArrayList<>(written.keySet()));
        List<String> wrong = new ArrayList<>();
        written.forEach((key, version) -> {
            JsonNode row = rows.get(key);
            if (row == null || row.path("version").asLong() != version) wrong.add(key + " acked v" + version + ", read " + row);
        });
        assertThat(wrong).as("acknowledged keys missing or changed on %s", url).isEmpty();
        ClusterChecks.say("all %d acknowledged keys read back on %s", written.size(), url);
    }

    /** A new write gets a version above every version given out before: none is reused. */
    private void assertNewVersionsAreFresh(String url, Map<String, Long> written) {
        long highest = written.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        KvHttp.Reply r = http.put(url, NS, "fresh-" + System.nanoTime(), KvHttp.value(0));
        assertThat(r.ok()).as("write: %s", r).isTrue();
        assertThat(r.result(0).path("version").asLong()).isGreaterThan(highest);
    }

    /**
     * Waits until the leader lists {@code member} as a voter and re-admits no one, and the member holds
     * the group; on a timeout the failure names what every node said last.
     */
    private void awaitVotingAgain(String member) {
        await(member + " to vote again").atMost(REPAIR_BUDGET).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            JsonNode s = leaderStatus();
            boolean done = s != null && s.path("readmitting").isEmpty() && roleOf(s, member).equals("follower")
                    && status(member).path("membership").asText().equals("member");
            assertThat(done).as("%s voting again; the nodes said: %s", member, views()).isTrue();
        });
    }

    /** One line per live node: its role, term, membership, the members it sees and whom it re-admits. */
    private String views() {
        StringBuilder line = new StringBuilder();
        for (String id : cluster.liveIds()) {
            JsonNode s = status(id);
            line.append(id).append(": ").append(s.path("role").asText("no answer")).append(" term ").append(s.path("term").asLong())
                    .append(' ').append(s.path("membership").asText()).append(" members ").append(s.path("members"))
                    .append(" readmitting ").append(s.path("readmitting")).append("; ");
        }
        return line.toString();
    }

    private JsonNode status(String id) {
        KvHttp.Reply r = http.cluster(cluster.url(id));
        return r.ok() ? r.body() : JsonNodeFactory.instance.objectNode();
    }

    /** The status of whichever node says it leads, or null. */
    private JsonNode leaderStatus() {
        for (String id : cluster.liveIds()) {
            JsonNode s = status(id);
            if ("leader".equals(s.path("role").asText())) return s;
        }
        return null;
    }

    private static String roleOf(JsonNode status, String id) {
        for (JsonNode m : status.path("members")) if (m.path("id").asText().equals(id)) return m.path("role").asText();
        return "absent";
    }
}
