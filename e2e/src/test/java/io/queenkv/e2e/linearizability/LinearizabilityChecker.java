package io.queenkv.e2e.linearizability;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A linearizability checker in the style of Wing &amp; Gong, with Lowe's memoization, as in
 * Porcupine (github.com/anishathalye/porcupine).
 *
 * <h2>Algorithm</h2>
 * The history is split into partitions ({@link Model#partitionKey}, e.g. one per KV key); each is
 * checked on its own. Within a partition every operation becomes two events, its call and its
 * return, kept in one doubly linked list sorted by time (a call before a return at equal times, so
 * touching intervals count as concurrent). A depth-first search walks the list from the head:
 * <ul>
 *   <li>at a <b>call</b> event, it tries to linearize that operation now: apply it to the current
 *       set of possible model states; if some state allows it and the pair (set of linearized
 *       operations, resulting states) was not seen before, it records the choice on a stack,
 *       removes the operation's two events from the list ("lifts" them) and restarts from the head;
 *       otherwise it moves on to the next event (another operation that is pending now);</li>
 *   <li>at a <b>return</b> event, the operation it belongs to has not been linearized although it
 *       has finished, so every operation still available here was a wrong choice: it backtracks —
 *       pops the last choice, puts its events back and continues after its call event.</li>
 * </ul>
 * The partition is linearizable when the list becomes empty; not linearizable when a backtrack
 * finds the stack empty. The memo (Lowe's optimization) prunes every revisit of a
 * (linearized set, states) pair, which is what keeps the search practical.
 *
 * <p>An operation with an unknown outcome has its return at +infinity: it is pending until the end
 * of the history, so it may be linearized anywhere after its call — including after everything
 * else, which models "never took effect".
 *
 * <p>The search is bounded: past {@code maxSteps} model steps in one partition the verdict is
 * {@link Verdict#SEARCH_TOO_LARGE} rather than a hang.
 */
public final class LinearizabilityChecker {
    public static final long DEFAULT_MAX_STEPS = 5_000_000;

    public enum Verdict { LINEARIZABLE, NOT_LINEARIZABLE, SEARCH_TOO_LARGE }

    /** The outcome of one partition. */
    public record PartitionResult(Object partition, Verdict verdict, int operations, long steps, String explanation) {}

    /** The outcome of a whole history: the worst partition verdict, and every partition's detail. */
    public record Result(Verdict verdict, List<PartitionResult> partitions) {
        public boolean linearizable() {
            return verdict == Verdict.LINEARIZABLE;
        }

        /** A readable account of every partition that is not linearizable or was too large. */
        public String explanation() {
            StringBuilder sb = new StringBuilder("history is " + verdict);
            for (PartitionResult p : partitions) {
                if (p.verdict != Verdict.LINEARIZABLE)
                    sb.append("\n--- partition ").append(p.partition).append(": ").append(p.verdict)
                            .append(" (").append(p.operations).append(" ops, ").append(p.steps).append(" steps)\n")
                            .append(p.explanation);
            }
            return sb.toString();
        }

        /** Throws an {@link AssertionError} with the explanation unless linearizable. */
        public Result assertLinearizable() {
            if (!linearizable()) throw new AssertionError(explanation());
            return this;
        }
    }

    private LinearizabilityChecker() {}

    public static <S, I, O> Result check(Model<S, I, O> model, List<Operation<I, O>> history) {
        return check(model, history, DEFAULT_MAX_STEPS);
    }

    public static <S, I, O> Result check(Model<S, I, O> model, List<Operation<I, O>> history, long maxSteps) {
        Map<Object, List<Operation<I, O>>> partitions = new LinkedHashMap<>();
        for (Operation<I, O> op : history)
            partitions.computeIfAbsent(model.partitionKey(op.input()), k -> new ArrayList<>()).add(op);
        List<PartitionResult> results = new ArrayList<>();
        Verdict worst = Verdict.LINEARIZABLE;
        for (var e : partitions.entrySet()) {
            PartitionResult r = new Search<>(model, e.getKey(), e.getValue(), maxSteps).run();
            results.add(r);
            if (r.verdict == Verdict.NOT_LINEARIZABLE) worst = Verdict.NOT_LINEARIZABLE;
            else if (r.verdict == Verdict.SEARCH_TOO_LARGE && worst == Verdict.LINEARIZABLE) worst = Verdict.SEARCH_TOO_LARGE;
        }
        return new Result(worst, results);
    }

    /** One event of the linked list: an operation's call or its return. */
    private static final class Event {
        final int op;
        final boolean call;
        final long time;
        Event match; // call <-> return
        Event prev, next;

        Event(int op, boolean call, long time) {
            this.op = op;
            this.call = call;
            this.time = time;
        }
    }

    /** The memo key: which operations are linearized, and the set of possible states after them. */
    private record Memo<S>(BitSet linearized, Set<S> states) {}

    private record Choice<S>(Event call, Set<S> statesBefore) {}

    /** The search over one partition. */
    private static final class Search<S, I, O> {
        final Model<S, I, O> model;
        final Object partition;
        final List<Operation<I, O>> ops;
        final long maxSteps;
        final Event head = new Event(-1, true, Long.MIN_VALUE); // sentinel
        long steps;
        List<Integer> longest = List.of();

        Search(Model<S, I, O> model, Object partition, List<Operation<I, O>> ops, long maxSteps) {
            this.model = model;
            this.partition = partition;
            this.ops = ops;
            this.maxSteps = maxSteps;
            buildList();
        }

        private void buildList() {
            List<Event> events = new ArrayList<>(ops.size() * 2);
            for (int i = 0; i < ops.size(); i++) {
                Event c = new Event(i, true, ops.get(i).call());
                Event r = new Event(i, false, ops.get(i).ret());
                c.match = r;
                r.match = c;
                events.add(c);
                events.add(r);
            }
            events.sort((a, b) -> {
                int byTime = Long.compare(a.time, b.time);
                if (byTime != 0) return byTime;
                if (a.call != b.call) return a.call ? -1 : 1; // calls first: touching intervals overlap
                return Integer.compare(a.op, b.op);
            });
            Event prev = head;
            for (Event e : events) {
                prev.next = e;
                e.prev = prev;
                prev = e;
            }
        }

        /** Removes an operation's call and return events from the list. */
        private static void lift(Event call) {
            call.prev.next = call.next;
            call.next.prev = call.prev; // a call is always followed by at least its own return
            Event ret = call.match;
            ret.prev.next = ret.next;
            if (ret.next != null) ret.next.prev = ret.prev;
        }

        /** Puts back what {@link #lift} removed (in reverse order, so the links are restored exactly). */
        private static void unlift(Event call) {
            Event ret = call.match;
            ret.prev.next = ret;
            if (ret.next != null) ret.next.prev = ret;
            call.prev.next = call;
            call.next.prev = call;
        }

        PartitionResult run() {
            Set<S> states = Set.of(model.init());
            BitSet linearized = new BitSet(ops.size());
            Set<Memo<S>> memo = new HashSet<>();
            Deque<Choice<S>> stack = new ArrayDeque<>();
            Event entry = head.next;
            while (head.next != null) {
                if (entry.call) {
                    Operation<I, O> op = ops.get(entry.op);
                    Set<S> after = step(states, op);
                    if (++steps > maxSteps) {
                        return new PartitionResult(partition, Verdict.SEARCH_TOO_LARGE, ops.size(), steps,
                                "search too large: gave up after " + maxSteps + " model steps with "
                                        + stack.size() + " of " + ops.size() + " operations linearized; "
                                        + "check shorter histories or fewer concurrent unknown-outcome operations");
                    }
                    if (!after.isEmpty()) {
                        BitSet next = (BitSet) linearized.clone();
                        next.set(entry.op);
                        if (memo.add(new Memo<>(next, after))) {
                            stack.push(new Choice<>(entry, states));
                            states = after;
                            linearized = next;
                            lift(entry);
                            if (stack.size() > longest.size()) longest = order(stack);
                            entry = head.next;
                            continue;
                        }
                    }
                    entry = entry.next;
                } else {
                    // The operation returning here was never linearized: undo the latest choice.
                    if (stack.isEmpty()) {
                        return new PartitionResult(partition, Verdict.NOT_LINEARIZABLE, ops.size(), steps, explain());
                    }
                    Choice<S> top = stack.pop();
                    states = top.statesBefore;
                    linearized = (BitSet) linearized.clone();
                    linearized.clear(top.call.op);
                    unlift(top.call);
                    entry = top.call.next;
                }
            }
            return new PartitionResult(partition, Verdict.LINEARIZABLE, ops.size(), steps, "");
        }

        private Set<S> step(Set<S> states, Operation<I, O> op) {
            Set<S> out = new LinkedHashSet<>();
            for (S s : states) out.addAll(model.step(s, op.input(), op.output()));
            return out.isEmpty() ? Set.of() : Set.copyOf(out);
        }

        private static <S> List<Integer> order(Deque<Choice<S>> stack) {
            List<Integer> l = new ArrayList<>(stack.size());
            stack.descendingIterator().forEachRemaining(c -> l.add(c.call.op));
            return l;
        }

        /** The longest linearized prefix found, and what could not follow it. */
        private String explain() {
            long t0 = ops.stream().mapToLong(Operation::call).min().orElse(0);
            StringBuilder sb = new StringBuilder();
            sb.append("longest linearizable prefix (").append(longest.size()).append(" of ").append(ops.size())
                    .append(" ops), in linearization order:\n");
            Set<S> states = Set.of(model.init());
            for (int i : longest) {
                sb.append("    ").append(line(i, t0)).append('\n');
                states = step(states, ops.get(i));
            }
            sb.append("  possible states after it: ").append(states).append('\n');
            sb.append("  operations that cannot be placed next (none of them, or any earlier choice, works):\n");
            Set<Integer> done = new HashSet<>(longest);
            for (int i = 0; i < ops.size(); i++)
                if (!done.contains(i)) sb.append("    ").append(line(i, t0)).append('\n');
            return sb.toString();
        }

        private String line(int i, long t0) {
            Operation<I, O> op = ops.get(i);
            String ret = op.unknownOutcome() ? "unknown" : String.format("%.3f", (op.ret() - t0) / 1e6);
            return String.format("[client %d, %.3f..%s ms] %s", op.clientId(), (op.call() - t0) / 1e6, ret,
                    model.describe(op.input(), op.output()));
        }
    }
}
