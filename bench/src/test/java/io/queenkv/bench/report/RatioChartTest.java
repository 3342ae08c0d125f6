package io.queenkv.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import io.queenkv.bench.load.Measurement;
import io.queenkv.bench.report.Results.BenchReport;
import io.queenkv.bench.report.Results.SystemResult;
import io.queenkv.bench.report.Results.WorkloadResult;

class RatioChartTest {
    private static WorkloadResult workload(String id, Double opsPerSecond) {
        Measurement m = opsPerSecond == null ? null : new Measurement(1, 0, 1, opsPerSecond, 1, 2, 3, 4);
        return new WorkloadResult(id, 1, "d", "e", m, null);
    }

    private static SystemResult system(String id, Double put, Double serializable) {
        return new SystemResult(id, id, "v", 1, List.of(),
                List.of(workload("put <&>", put), workload("get-serializable", serializable)), null, 0, 0);
    }

    @Test
    void oneBarPerEtcdAndWorkloadWithTheRatioAsLabel() throws Exception {
        BenchReport report = new BenchReport("2026-12-01T10:00:00Z", "2026-12-01T10:20:00Z", null, null,
                List.of(system("etcd-3.4", 1000.0, 5000.0), system("etcd-3.6", 2000.0, 6000.0), system("queen-kv", 460.0, null)),
                List.of());

        String svg = RatioChart.svg(report);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target/ratio-chart-test.svg"), svg);

        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(svg).contains(">0.46×<", ">0.23×<", ">n/a<", ">put &lt;&amp;&gt;<");
    }
}
