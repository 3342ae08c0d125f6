package io.queenkv.node.testing.property;

import java.util.List;

/** What a run of a property came to: every try passed, or one failed (and was minimised). */
public sealed interface Verdict<S> {

    /** Every seed of the plan passed. */
    record Passed<S>(int tries) implements Verdict<S> {}

    /**
     * The seed of try {@code tryNumber} (1-based, of {@code tries}) generated {@code generatedSize}
     * steps that failed; {@code minimised} is the shortest failing part of them, {@code failure} what
     * it threw.
     */
    record Failed<S>(long seed, int tryNumber, int tries, int generatedSize, List<S> minimised, Throwable failure)
            implements Verdict<S> {

        /** The seed, how to replay it, the minimised steps one a line, and the failure. */
        public String report() {
            StringBuilder report = new StringBuilder()
                    .append("property failed: seed=").append(seed)
                    .append(" (try ").append(tryNumber).append(" of ").append(tries)
                    .append("; replay with -D").append(Plan.SEED_PROPERTY).append('=').append(seed).append(")\n")
                    .append(generatedSize).append(" generated steps, minimised to ").append(minimised.size()).append(":\n");
            for (int i = 0; i < minimised.size(); i++) report.append("  ").append(i + 1).append(". ").append(minimised.get(i)).append('\n');
            return report.append("failure of the minimised steps: ").append(failure).toString();
        }
    }
}
