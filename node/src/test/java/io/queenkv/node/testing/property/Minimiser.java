package io.queenkv.node.testing.property;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Shrinks a failing step sequence by dropping steps while it still fails, delta-debugging style:
 * try removing chunks of half the sequence, then of a quarter, and so on down to single steps; after
 * a removal that still fails, try again at the same size. It ends when no single step can be dropped
 * (the result is 1-minimal: removing any one step makes it pass). Steps are only removed, never
 * changed, so every step of the result is one the generator produced.
 *
 * <p>Any failure counts, not only the first one's kind: the result may fail for another reason than
 * the generated sequence did, and the report shows the failure of the result.
 */
public final class Minimiser {
    private Minimiser() {}

    /** Steps and the failure they cause. */
    public record Failing<S>(List<S> steps, Throwable failure) {}

    /**
     * @param failing a sequence known to fail, with its failure
     * @param run     runs the property on a candidate sequence; the failure if it fails, else empty
     * @return the shortest failing sequence found, with its failure
     */
    public static <S> Failing<S> minimise(Failing<S> failing, Function<List<S>, Optional<Throwable>> run) {
        List<S> current = failing.steps();
        Throwable failure = failing.failure();
        int chunk = Math.max(1, current.size() / 2);
        while (!current.isEmpty()) {
            boolean removedAny = false;
            int start = 0;
            while (start < current.size()) {
                List<S> candidate = without(current, start, Math.min(current.size(), start + chunk));
                Optional<Throwable> candidateFailure = run.apply(candidate);
                if (candidateFailure.isPresent()) {
                    // Keep start: the steps after the removed chunk have moved into its place.
                    current = candidate;
                    failure = candidateFailure.get();
                    removedAny = true;
                } else {
                    start += chunk;
                }
            }
            if (!removedAny) {
                if (chunk == 1) break;
                chunk /= 2;
            }
            chunk = Math.min(chunk, Math.max(1, current.size()));
        }
        return new Failing<>(current, failure);
    }

    private static <S> List<S> without(List<S> steps, int from, int to) {
        List<S> rest = new ArrayList<>(steps.size() - (to - from));
        rest.addAll(steps.subList(0, from));
        rest.addAll(steps.subList(to, steps.size()));
        return Collections.unmodifiableList(rest);
    }
}
