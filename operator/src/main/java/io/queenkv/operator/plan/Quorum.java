package io.queenkv.operator.plan;

import java.util.List;
import java.util.Optional;

/**
 * The two quorum rules every step that takes a member away obeys, checked from what was just observed:
 * once when the step is planned and again immediately before it acts (a drain or a crash in between
 * may have taken another member).
 */
public final class Quorum {
    private Quorum() {}

    /** Why removing {@code id} from the group would leave it without a quorum of ready members, if it would. */
    public static Optional<String> removalRefusal(Observed o, String id) {
        List<String> members = o.members();
        List<String> ready = o.readyMembers();
        long readyAfter = ready.stream().filter(r -> !r.equals(id)).count();
        int majorityNow = Observed.majority(members.size());
        int majorityAfter = Observed.majority(members.size() - 1);
        if (ready.size() < majorityNow || readyAfter < majorityAfter)
            return Optional.of("removing " + id + " would leave " + readyAfter + " ready of " + (members.size() - 1)
                    + " members (a quorum needs " + majorityAfter + "); not ready: " + o.notReady());
        return Optional.empty();
    }

    /**
     * Why restarting {@code id} now would leave fewer than a quorum of voters ready, if it would. A member
     * that is not ready serves no quorum: restarting it (a new image may be its fix) takes nothing away.
     */
    public static Optional<String> restartRefusal(Observed o, String id) {
        if (!o.ready(id)) return Optional.empty();
        List<String> voters = o.voters();
        long othersReady = voters.stream().filter(v -> !v.equals(id)).filter(o::ready).count();
        int quorum = Observed.majority(voters.size());
        if (othersReady >= quorum) return Optional.empty();
        return Optional.of("restarting " + id + " waits: " + othersReady + " other voters ready, a quorum needs " + quorum
                + "; not ready: " + o.notReady());
    }
}
