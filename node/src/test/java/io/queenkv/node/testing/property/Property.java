package io.queenkv.node.testing.property;

import java.util.List;

/**
 * A check over a sequence of steps: returns normally when the steps behave, throws (an assertion
 * failure or any exception) when they do not. It must be deterministic in its steps and start from
 * fresh state on every call, since the minimiser runs it again on shorter sequences; a step that
 * only makes sense after another (a retry of a previous call) should then do nothing.
 *
 * @param <S> the step type; its {@code toString} is what a failure report prints, one step a line
 */
@FunctionalInterface
public interface Property<S> {
    void check(List<S> steps) throws Exception;
}
