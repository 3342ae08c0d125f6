package io.queenkv.node.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

import io.queenkv.node.kv.Entry;
import io.queenkv.node.kv.EntryCodec;
import io.queenkv.node.kv.Expiry;
import io.queenkv.node.kv.JsonValue;
import io.queenkv.node.kv.KvEngine;
import io.queenkv.node.kv.Op;
import io.queenkv.node.kv.Settings;

/** Apply never throws: an entry that does not decode is skipped alike on every node, and the next one applies. */
class KvStateMachineTest {
    static final long T0 = 1_790_000_000_000_000L;

    @Test
    void anUndecodableCommittedEntryIsSkippedAndTheNextOneApplies() {
        KvStateMachine sm = new KvStateMachine(Settings.DEFAULTS, () -> T0);
        byte[] unknownKind = {EntryCodec.FORMAT_VERSION, 0, 0, 0, 0, 0, 0, 0, 1, 42, 0, 0};

        CompletableFuture<Message> skipped = sm.applyTransaction(committed(sm, 1, unknownKind));
        assertThat(skipped).isCompletedExceptionally();
        assertThat(sm.getLastAppliedTermIndex().getIndex()).isEqualTo(1);
        assertThat(sm.applyTransaction(committed(sm, 2, new byte[] {99})).isCompletedExceptionally()).isTrue();
        assertThat(sm.getLastAppliedTermIndex().getIndex()).isEqualTo(2);

        Entry put = new Entry.WriteCall(T0, "t", null, null,
                List.of(new Op.Put("ns", "k", JsonValue.of("1"), Expiry.FOREVER, null, false)));
        CompletableFuture<Message> applied = sm.applyTransaction(committed(sm, 3, EntryCodec.encode(put)));
        assertThat(applied).isCompleted().isNotCompletedExceptionally();
        assertThat(sm.getLastAppliedTermIndex().getIndex()).isEqualTo(3);
        assertThat(sm.withEngine(KvEngine::keyCount)).isEqualTo(1);
    }

    private static TransactionContext committed(KvStateMachine sm, long index, byte[] data) {
        LogEntryProto entry = LogEntryProto.newBuilder().setTerm(1).setIndex(index)
                .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder().setLogData(ByteString.copyFrom(data))).build();
        return TransactionContext.newBuilder().setServerRole(RaftPeerRole.FOLLOWER).setStateMachine(sm).setLogEntry(entry).build();
    }
}
