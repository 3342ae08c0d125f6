package io.queenkv.operator;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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

    /**
     * Sets Ready, Reconciling and Stalled from Available, Progressing and Degraded, already set:
     * {@code stalledReasons} are the Degraded reasons that need a person (the others heal by
     * themselves, as a restarted pod does).
     */
    static void deriveKstatus(List<Condition> conditions, Set<String> stalledReasons, Long generation, Instant now) {
        Condition available = find(conditions, "Available").orElseThrow();
        Condition progressing = find(conditions, "Progressing").orElseThrow();
        Condition degraded = find(conditions, "Degraded").orElseThrow();
        boolean stalled = "True".equals(degraded.getStatus()) && stalledReasons.contains(degraded.getReason());
        boolean ready = "True".equals(available.getStatus()) && !"True".equals(progressing.getStatus()) && !"True".equals(degraded.getStatus());
        Condition why = !"True".equals(available.getStatus()) ? available : "True".equals(degraded.getStatus()) ? degraded
                : "True".equals(progressing.getStatus()) ? progressing : available;
        set(conditions, "Ready", ready, why.getReason(), why.getMessage(), generation, now);
        set(conditions, "Reconciling", "True".equals(progressing.getStatus()), progressing.getReason(), progressing.getMessage(), generation, now);
        set(conditions, "Stalled", stalled, degraded.getReason(), degraded.getMessage(), generation, now);
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
            case "Ready" -> 3;
            case "Reconciling" -> 4;
            case "Stalled" -> 5;
            default -> 6;
        };
    }
}
