package io.queenkv.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.queenkv.bench.report.Results.BenchReport;

/**
 * A report's three files: {@code <name>.json} (the figures), {@code <name>.md} (the tables the README
 * shows) and {@code <name>.svg} (the ratio chart). {@link #main} redraws the tables and the chart
 * from a JSON file, e.g. after a change to how they are drawn:
 * {@code java -cp bench/target/queen-kv-bench.jar io.queenkv.bench.report.ReportFiles bench/results/latest.json}.
 */
public final class ReportFiles {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ReportFiles() {}

    /** Writes the three files into {@code dir}; answers the JSON file. */
    public static Path write(BenchReport report, Path dir, String name) throws IOException {
        Files.createDirectories(dir);
        Path json = dir.resolve(name + ".json");
        JSON.writeValue(json.toFile(), report);
        writeDrawings(report, dir, name);
        return json;
    }

    private static void writeDrawings(BenchReport report, Path dir, String name) throws IOException {
        Files.writeString(dir.resolve(name + ".md"), markdown(report));
        Files.writeString(dir.resolve(name + ".svg"), RatioChart.svg(report));
    }

    public static String markdown(BenchReport report) {
        Table cpu = ResultsTables.cpuPerOp(report);
        return "Throughput (ops/s) and latency (ms):\n\n" + ResultsTables.throughput(report).markdown()
                + (cpu == null ? "" : "\nCPU time per answered operation (µs) over the same windows:\n\n" + cpu.markdown())
                + "\nA cluster holding the keys, and the first seconds after a cold start:\n\n"
                + ResultsTables.loadedCluster(report).markdown()
                + "\nWhat each workload sends:\n\n" + ResultsTables.workloadNotes(report).markdown();
    }

    public static void main(String[] args) throws IOException {
        for (String file : args) {
            Path json = Path.of(file);
            BenchReport report = JSON.readValue(json.toFile(), BenchReport.class);
            String name = json.getFileName().toString().replaceFirst("\\.json$", "");
            writeDrawings(report, json.toAbsolutePath().getParent(), name);
            System.out.println("redrew " + name + ".md and " + name + ".svg from " + json);
        }
    }
}
