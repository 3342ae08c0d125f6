package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.EntryCodec;
import io.queenkv.node.kv.Expiry;
import io.queenkv.node.kv.JsonValue;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.Op;
import io.queenkv.node.testing.LocalNode;

/**
 * Entries proposed straight to the Raft port by a client that is not the HTTP layer: the leader
 * decodes and checks each one and refuses what is malformed or breaks a rule, so nothing in the log
 * can wedge the state machine, and the node keeps serving, also after a restart.
 */
class RaftPortEntryTest {
    @TempDir
    Path dir;

    @Test
    void malformedAndRuleBreakingEntriesAreRefusedAndTheNodeKeepsServing() throws IOException {
        Path data = dir.resolve("data");
        try (LocalNode node = LocalNode.start(data)) {
            String put = "[{\"op\":\"put\",\"ns\":\"raw\",\"key\":\"k\",\"value\":1,\"forever\":true}]";
            assertThat(node.post("/api/v1/kv", put).statusCode()).isEqualTo(200);
            ReplicatedKv kv = node.node.replicated();
            long keysBefore = kv.local(KvEngine::keyCount);

            Entry badNamespace = new Entry.WriteCall(0, "t", null, null,
                    List.of(new Op.Put("Not A Namespace", "k", JsonValue.of("1"), Expiry.FOREVER, null, false)));
            Entry emptyKey = new Entry.WriteCall(0, "t", null, null,
                    List.of(new Op.Put("raw", "", JsonValue.of("1"), Expiry.FOREVER, null, false)));
            List<byte[]> refused = List.of(
                    new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0},   // an unknown entry kind (12 bytes)
                    new byte[] {9, 1, 2, 3},                           // an unknown format version
                    new byte[0],
                    EntryCodec.encode(badNamespace),
                    EntryCodec.encode(emptyKey));
            try (RaftClient raw = kv.newClient(List.copyOf(kv.division().getGroup().getPeers()), RetryPolicies.noRetry())) {
                for (byte[] bytes : refused)
                    assertThat(refusal(raw, bytes)).as("entry %s", java.util.Arrays.toString(bytes)).contains("entry refused");
            }
            // Nothing was applied, and the node answers as before.
            assertThat(kv.local(KvEngine::keyCount)).isEqualTo(keysBefore);
            assertThat(node.post("/api/v1/kv", put.replace("\"k\"", "\"k2\"")).statusCode()).isEqualTo(200);
        }
        try (LocalNode again = LocalNode.start(data, Map.of())) {
            String body = again.post("/api/v1/kv", "[{\"op\":\"getMany\",\"ns\":\"raw\",\"keys\":[\"k\",\"k2\"]}]").body();
            assertThat(body).contains("\"key\":\"k\"").contains("\"key\":\"k2\"");
        }
    }

    /** Why the leader refused the entry: the reply's exception, or the one the client threw. */
    private static String refusal(RaftClient raw, byte[] bytes) {
        try {
            RaftClientReply reply = raw.io().send(Message.valueOf(ByteString.copyFrom(bytes)));
            assertThat(reply.isSuccess()).as("the entry was accepted").isFalse();
            return String.valueOf(reply.getException());
        } catch (IOException e) {
            return String.valueOf(e);
        }
    }
}
