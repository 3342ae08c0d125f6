package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * The cluster-wide KV limits (API.md "Limits" and "Rate limits"). In the spec every field is optional
 * (absent: the node's default, or the value in force stays); in the status they are the values in force.
 * Ranges are rows of the node's settings table ({@code io.queenkv.node.kv.Setting});
 * {@code SettingBoundsTest} checks the generated CRD against it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KvSettings {
    @JsonPropertyDescription("Compact JSON bytes per value (default 65536).")
    @Min(1)
    @Max(16777216)
    private Integer maxValueBytes;

    @JsonPropertyDescription("Keys per call (default 1024, at most 4096).")
    @Min(1)
    @Max(4096)
    private Integer maxKeysPerCall;

    @JsonPropertyDescription("Ops per call (default 256).")
    @Min(1)
    @Max(10000)
    private Integer maxOpsPerCall;

    @JsonPropertyDescription("Request body bytes (default 33554432).")
    @Min(1024)
    @Max(67108864)
    private Long maxBodyBytes;

    @JsonPropertyDescription("Write calls per second per tenant and node; burst twice the rate (default 100).")
    @Min(1)
    @Max(10000000)
    private Integer writeRate;

    @JsonPropertyDescription("Read calls per second per tenant and node; burst twice the rate (default 200).")
    @Min(1)
    @Max(10000000)
    private Integer readRate;

    public KvSettings() {}

    public Integer getMaxValueBytes() { return maxValueBytes; }
    public void setMaxValueBytes(Integer maxValueBytes) { this.maxValueBytes = maxValueBytes; }
    public Integer getMaxKeysPerCall() { return maxKeysPerCall; }
    public void setMaxKeysPerCall(Integer maxKeysPerCall) { this.maxKeysPerCall = maxKeysPerCall; }
    public Integer getMaxOpsPerCall() { return maxOpsPerCall; }
    public void setMaxOpsPerCall(Integer maxOpsPerCall) { this.maxOpsPerCall = maxOpsPerCall; }
    public Long getMaxBodyBytes() { return maxBodyBytes; }
    public void setMaxBodyBytes(Long maxBodyBytes) { this.maxBodyBytes = maxBodyBytes; }
    public Integer getWriteRate() { return writeRate; }
    public void setWriteRate(Integer writeRate) { this.writeRate = writeRate; }
    public Integer getReadRate() { return readRate; }
    public void setReadRate(Integer readRate) { this.readRate = readRate; }

    public KvSettings maxValueBytes(Integer v) { this.maxValueBytes = v; return this; }
    public KvSettings maxKeysPerCall(Integer v) { this.maxKeysPerCall = v; return this; }
    public KvSettings maxOpsPerCall(Integer v) { this.maxOpsPerCall = v; return this; }
    public KvSettings maxBodyBytes(Long v) { this.maxBodyBytes = v; return this; }
    public KvSettings writeRate(Integer v) { this.writeRate = v; return this; }
    public KvSettings readRate(Integer v) { this.readRate = v; return this; }

    @Override
    public boolean equals(Object o) {
        return o instanceof KvSettings s && java.util.Objects.equals(maxValueBytes, s.maxValueBytes)
                && java.util.Objects.equals(maxKeysPerCall, s.maxKeysPerCall) && java.util.Objects.equals(maxOpsPerCall, s.maxOpsPerCall)
                && java.util.Objects.equals(maxBodyBytes, s.maxBodyBytes) && java.util.Objects.equals(writeRate, s.writeRate)
                && java.util.Objects.equals(readRate, s.readRate);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(maxValueBytes, maxKeysPerCall, maxOpsPerCall, maxBodyBytes, writeRate, readRate);
    }

    @Override
    public String toString() {
        return "KvSettings{maxValueBytes=" + maxValueBytes + ", maxKeysPerCall=" + maxKeysPerCall + ", maxOpsPerCall=" + maxOpsPerCall
                + ", maxBodyBytes=" + maxBodyBytes + ", writeRate=" + writeRate + ", readRate=" + readRate + "}";
    }
}
