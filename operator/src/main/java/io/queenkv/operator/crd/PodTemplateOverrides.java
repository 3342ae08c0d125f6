package io.queenkv.operator.crd;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;

/** What a user may change in the node pods' template; everything else is the operator's. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodTemplateOverrides {
    @JsonPropertyDescription("Extra pod labels (the operator's own labels win).")
    private Map<String, String> labels = new LinkedHashMap<>();

    @JsonPropertyDescription("Extra pod annotations (the operator's own annotations win).")
    private Map<String, String> annotations = new LinkedHashMap<>();

    @JsonPropertyDescription("Pod affinity. Absent: prefer spreading the nodes over hosts.")
    private Affinity affinity;

    private List<Toleration> tolerations = new ArrayList<>();

    private List<TopologySpreadConstraint> topologySpreadConstraints = new ArrayList<>();

    private Map<String, String> nodeSelector = new LinkedHashMap<>();

    @JsonPropertyDescription("PriorityClass of the node pods.")
    @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
    @Size(max = 253)
    private String priorityClassName;

    public Map<String, String> getLabels() { return labels; }
    public void setLabels(Map<String, String> labels) { this.labels = labels; }
    public Map<String, String> getAnnotations() { return annotations; }
    public void setAnnotations(Map<String, String> annotations) { this.annotations = annotations; }
    public Affinity getAffinity() { return affinity; }
    public void setAffinity(Affinity affinity) { this.affinity = affinity; }
    public List<Toleration> getTolerations() { return tolerations; }
    public void setTolerations(List<Toleration> tolerations) { this.tolerations = tolerations; }
    public List<TopologySpreadConstraint> getTopologySpreadConstraints() { return topologySpreadConstraints; }
    public void setTopologySpreadConstraints(List<TopologySpreadConstraint> c) { this.topologySpreadConstraints = c; }
    public Map<String, String> getNodeSelector() { return nodeSelector; }
    public void setNodeSelector(Map<String, String> nodeSelector) { this.nodeSelector = nodeSelector; }
    public String getPriorityClassName() { return priorityClassName; }
    public void setPriorityClassName(String priorityClassName) { this.priorityClassName = priorityClassName; }
}
