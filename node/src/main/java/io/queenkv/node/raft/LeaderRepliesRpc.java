package io.queenkv.node.raft;

import java.util.List;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * Ratis' gRPC transport, with the leader's log appenders and their followers' replies shown to
 * this node's {@link LeadershipCheck}. The Raft server is configured with this type by class name
 * ({@link org.apache.ratis.RaftConfigKeys.Rpc#setType}); Ratis creates it through the public no-argument
 * constructor and hands the factory the server's {@link Parameters}, which carry the check.
 */
public final class LeaderRepliesRpc implements RpcType {
    private static final String CHECK = LeaderRepliesRpc.class.getName() + ".check";

    /** Puts the check the server's factory reports to in the server's parameters. */
    static void attach(Parameters parameters, LeadershipCheck check) {
        parameters.put(CHECK, check, LeadershipCheck.class);
    }

    @Override
    public String name() {
        return LeaderRepliesRpc.class.getName();
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
        return new Factory(parameters, parameters.getNonNull(CHECK, LeadershipCheck.class));
    }

    private static final class Factory extends GrpcFactory {
        private final LeadershipCheck check;

        Factory(Parameters parameters, LeadershipCheck check) {
            super(parameters);
            this.check = check;
        }

        @Override
        public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
            LogAppender appender = super.newLogAppender(server, new RepliesShown(state, check), follower);
            check.appenderStarted(server, appender);
            return appender;
        }
    }

    /** The leader's state as Ratis has it, which also shows every reply Ratis takes to {@link LeadershipCheck#replied}. */
    private record RepliesShown(LeaderState leader, LeadershipCheck check) implements LeaderState {
        @Override
        public void onAppendEntriesReply(LogAppender appender, AppendEntriesReplyProto reply) {
            leader.onAppendEntriesReply(appender, reply);
            check.replied(appender, reply);
        }

        @Override
        public void restart(LogAppender appender) {
            leader.restart(appender);
        }

        @Override
        public AppendEntriesRequestProto newAppendEntriesRequestProto(FollowerInfo follower, List<LogEntryProto> entries,
                                                                      TermIndex previous, long callId) {
            return leader.newAppendEntriesRequestProto(follower, entries, previous, callId);
        }

        @Override
        public void checkHealth(FollowerInfo follower) {
            leader.checkHealth(follower);
        }

        @Override
        public boolean onFollowerTerm(FollowerInfo follower, long followerTerm) {
            return leader.onFollowerTerm(follower, followerTerm);
        }

        @Override
        public void onFollowerCommitIndex(FollowerInfo follower, long commitIndex) {
            leader.onFollowerCommitIndex(follower, commitIndex);
        }

        @Override
        public void onFollowerSuccessAppendEntries(FollowerInfo follower) {
            leader.onFollowerSuccessAppendEntries(follower);
        }

        @Override
        public boolean isFollowerBootstrapping(FollowerInfo follower) {
            return leader.isFollowerBootstrapping(follower);
        }
    }
}
