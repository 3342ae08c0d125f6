package io.queenkv.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/**
 * Scheduled backups: a CronJob {@code <name>-backup} streams {@code GET /api/v1/admin/backup} into the
 * claim {@code <name>-backups} and keeps the newest {@code retention} files. The claim is not owned by
 * the cluster, so deleting the cluster keeps its backups.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BackupSpec {
    public static final int DEFAULT_RETENTION = 7;

    @JsonPropertyDescription("When to back up, in cron syntax (\"0 3 * * *\": daily at 03:00 in the CronJob's time zone) or a macro such as @hourly.")
    @Required
    @Pattern("^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|\\S+( \\S+){4})$")
    @Size(min = 1, max = 128)
    private String schedule;

    @JsonPropertyDescription("How many backup files to keep; each run deletes the oldest beyond this after its own backup succeeded.")
    @Min(1)
    @Max(1000)
    @Default("7")
    private Integer retention = DEFAULT_RETENTION;

    @JsonPropertyDescription("The backups claim <name>-backups (ReadWriteOnce): size and StorageClass. Fixed once the claim exists.")
    private StorageSpec storage;

    public BackupSpec() {}

    public BackupSpec(String schedule, Integer retention, StorageSpec storage) {
        this.schedule = schedule;
        this.retention = retention;
        this.storage = storage;
    }

    public String getSchedule() { return schedule; }
    public void setSchedule(String schedule) { this.schedule = schedule; }
    public Integer getRetention() { return retention; }
    public void setRetention(Integer retention) { this.retention = retention; }
    public StorageSpec getStorage() { return storage; }
    public void setStorage(StorageSpec storage) { this.storage = storage; }
}
