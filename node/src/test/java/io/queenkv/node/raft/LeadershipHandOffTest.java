package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.ratis.protocol.RaftPeer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.testing.LocalNode;

/**
 * Removing the leader hands leadership off first, and with no member named it must go to one that
 * can take it: a member that is down (or restarted and still catching up) cannot win the election
 * before the transfer times out, and then the removal fails although four of five members serve.
 */
@Timeout(180)
class LeadershipHandOffTest {
    static final String PUT = "[{\"op\":\"put\",\"ns\":\"h\",\"key\":\"k\",\"value\":1,\"forever\":true}]";
    @TempDir
    Path dir;
    List<LocalNode> nodes = List.of();

    @AfterEach
    void close() throws IOException {
        for (LocalNode n : nodes) n.close();
    }

    @Test
    void removingTheLeaderHandsLeadershipToAMemberThatAnswersNotTheFirstInTheConfiguration() throws IOException {
        nodes = LocalNode.startCluster(dir, 5, Map.of());
        LocalNode leader = LocalNode.awaitLeader(nodes);
        // The member listed first must not lead: it is the one taken down.
        if (id(leader).equals("n1")) {
            new ClusterAdmin(leader.node.replicated()).transferLeadership("n2");
            leader = LocalNode.awaitLeader(nodes);
        }
        ClusterAdmin admin = new ClusterAdmin(leader.node.replicated());
        String first = admin.members().get(0).getId().toString();
        assertThat(first).isEqualTo("n1").isNotEqualTo(id(leader));
        LocalNode down = nodes.stream().filter(n -> id(n).equals(first)).findFirst().orElseThrow();
        down.close();

        String removed = id(leader);
        List<RaftPeer> after = admin.removeMember(removed);

        assertThat(after).extracting(p -> p.getId().toString()).doesNotContain(removed).hasSize(4);
        List<LocalNode> serving = nodes.stream().filter(n -> n != down && !id(n).equals(removed)).toList();
        LocalNode newLeader = LocalNode.awaitLeader(serving);
        assertThat(newLeader.post("/api/v1/kv", PUT).statusCode())
                .as("a write after the removal").isEqualTo(200);
    }

    private static String id(LocalNode n) {
        return n.node.replicated().selfId().toString();
    }
}
