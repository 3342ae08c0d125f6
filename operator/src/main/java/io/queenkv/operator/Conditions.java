package io.queenkv.operator;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;

/** Status conditions: set one, keeping its {@code lastTransitionTime} unless its status flips. */
final class Conditions {
    private Conditions() {}

    static void set(List<Condition> conditions, String type, boolean status, String reason, String message, Long generation, Instant now) {
        String value = status ? "True" : "False";
        Optional<Condition> old = find(conditions, type);
        String since = old.filter(o -> value.equals(o.getStatus())).map(Condition::getLastTransitionTime)
                .orElse(now.truncatedTo(ChronoUnit.SECONDS).toString());
        Condition next = new ConditionBuilder().withType(type).withStatus(value).withReason(reason).withMessage(message)
                .withObservedGeneration(generation).withLastTransitionTime(since).build();
        conditions.removeIf(c -> type.equals(c.getType()));
        conditions.add(next);
        conditions.sort(java.util.Comparator.comparingInt(c -> order(c.getType())));
    }

    static Optional<Condition> find(List<Condition> conditions, String type) {
        return conditions == null ? Optional.empty() : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    static boolean isTrue(List<Condition> conditions, String type) {
        return find(conditions, type).map(c -> "True".equals(c.getStatus())).orElse(false);
    }

    private static int order(String type) {
        return switch (type) {
            case "Available" -> 0;
            case "Progressing" -> 1;
            case "Degraded" -> 2;
            default -> 3;
        };
    }
}
