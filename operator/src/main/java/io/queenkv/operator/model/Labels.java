package io.queenkv.operator.model;

import java.util.LinkedHashMap;
import java.util.Map;

/** The labels on everything the operator creates; the first two select a cluster's pods. */
public final class Labels {
    public static final String NAME = "app.kubernetes.io/name";
    public static final String INSTANCE = "app.kubernetes.io/instance";
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String COMPONENT = "app.kubernetes.io/component";
    public static final String APP = "queen-kv";
    public static final String OPERATOR = "queen-kv-operator";

    private Labels() {}

    /** {@code name} and {@code instance}: the pod selector (never changes for a cluster). */
    public static Map<String, String> selector(String cluster) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(NAME, APP);
        m.put(INSTANCE, cluster);
        return m;
    }

    /** The selector plus {@code managed-by}. */
    public static Map<String, String> of(String cluster) {
        Map<String, String> m = selector(cluster);
        m.put(MANAGED_BY, OPERATOR);
        return m;
    }

    /**
     * The backup job's pods: a name of their own, so no node selector (the Services, the PDB, the
     * StatefulSet) ever counts them; the chart's NetworkPolicy lets them reach the HTTP port.
     */
    public static Map<String, String> backup(String cluster) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(NAME, APP + "-backup");
        m.put(INSTANCE, cluster);
        m.put(MANAGED_BY, OPERATOR);
        m.put(COMPONENT, "backup");
        return m;
    }

    /** The selector as a label-selector string ({@code status.selector}, for the scale subresource). */
    public static String selectorString(String cluster) {
        StringBuilder b = new StringBuilder();
        selector(cluster).forEach((k, v) -> b.append(b.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return b.toString();
    }
}
