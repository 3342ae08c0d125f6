package io.queenkv.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.queenkv.bench.load.Measurement;
import io.queenkv.bench.report.Results.BenchReport;
import io.queenkv.bench.report.Results.CpuPerOp;
import io.queenkv.bench.report.Results.SystemResult;
import io.queenkv.bench.report.Results.WorkloadResult;

class CpuPerOpTableTest {
    private static SystemResult system(String id, CpuPerOp put, CpuPerOp get) {
        Measurement m = new Measurement(1000, 0, 1, 1000, 1, 2, 3, 4);
        return new SystemResult(id, id, "v", 1, List.of(),
                List.of(new WorkloadResult("put", 64, "d", "e", m, put), new WorkloadResult("get", 64, "d", "e", m, get)),
                null, 0, 0);
    }

    private static BenchReport report(SystemResult... systems) {
        return new BenchReport("2026-12-07T03:00:00Z", "2026-12-07T03:10:00Z", null, null, List.of(systems), List.of());
    }

    @Test
    void perOperationTimeIsTheWindowsCpuOverItsAnswers() {
        CpuPerOp cpu = CpuPerOp.of(Duration.ofMillis(900), Duration.ofMillis(150), 3000);
        assertThat(cpu.membersMicros()).isEqualTo(300.0);
        assertThat(cpu.loadGeneratorMicros()).isEqualTo(50.0);
        assertThat(CpuPerOp.of(Duration.ofMillis(900), Duration.ZERO, 0)).as("no answers, nothing to divide").isNull();
    }

    @Test
    void eachSystemsCpuPerOperationAndQueenKvsOverEachEtcds() {
        Table table = ResultsTables.cpuPerOp(report(
                system("etcd-3.6", new CpuPerOp(200, 40), new CpuPerOp(100, 30)),
                system("queen-kv", new CpuPerOp(300, 60), null)));

        assertThat(table.header()).containsExactly("workload", "etcd-3.6 members µs/op", "etcd-3.6 load generator µs/op",
                "queen-kv members µs/op", "queen-kv load generator µs/op", "members CPU/op vs etcd-3.6");
        assertThat(table.rows()).containsExactly(
                List.of("put", "200", "40", "300", "60", "1.50×"),
                List.of("get", "100", "30", "—", "—", "n/a"));
    }

    @Test
    void aReportWithoutCpuFiguresHasNoSuchTable() {
        assertThat(ResultsTables.cpuPerOp(report(system("etcd-3.6", null, null), system("queen-kv", null, null)))).isNull();
        assertThat(ReportFiles.markdown(report(system("queen-kv", null, null)))).doesNotContain("CPU time per answered operation");
    }
}
