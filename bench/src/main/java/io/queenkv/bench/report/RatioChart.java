package io.queenkv.bench.report;

import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

import io.queenkv.bench.report.Results.BenchReport;
import io.queenkv.bench.report.Results.SystemResult;
import io.queenkv.bench.report.Results.WorkloadResult;

/**
 * A horizontal bar chart, as plain SVG, of Queen KV's throughput divided by each etcd's, one group of
 * bars per workload, with a line at 1× (equal throughput).
 */
public final class RatioChart {
    private static final String[] COLOURS = {"#4e79a7", "#f28e2b", "#59a14f"};
    private static final int LABEL_WIDTH = 190;
    private static final int PLOT_WIDTH = 560;
    private static final int BAR_HEIGHT = 12;
    private static final int GROUP_GAP = 10;
    private static final int TOP = 50;

    private RatioChart() {}

    public static String svg(BenchReport report) {
        List<SystemResult> systems = report.systems();
        SystemResult queen = ResultsTables.queenKv(systems);
        List<SystemResult> etcds = systems.stream().filter(s -> !s.system().equals(ResultsTables.QUEEN_KV)).toList();
        List<String> workloads = ResultsTables.workloadIds(systems);

        double max = 1.2;
        if (queen != null)
            for (String w : workloads)
                for (SystemResult e : etcds) {
                    OptionalDouble r = ratio(queen, e, w);
                    if (r.isPresent()) max = Math.max(max, r.getAsDouble() * 1.15);
                }
        double scale = PLOT_WIDTH / max;

        int groupHeight = Math.max(1, etcds.size()) * BAR_HEIGHT + GROUP_GAP;
        int height = TOP + workloads.size() * groupHeight + 50;
        int width = LABEL_WIDTH + PLOT_WIDTH + 80;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"sans-serif\" font-size=\"11\">%n", width, height, width, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        svg.append(text(10, 20, "Queen KV throughput ÷ etcd throughput, same machine, same load generator (higher is better for Queen KV)",
                "font-size=\"13\" font-weight=\"bold\""));
        for (int i = 0; i < etcds.size(); i++) {
            int x = LABEL_WIDTH + i * 200;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"30\" width=\"12\" height=\"10\" fill=\"%s\"/>%n", x, COLOURS[i % COLOURS.length]));
            svg.append(text(x + 16, 39, "vs " + etcds.get(i).system() + " (" + etcds.get(i).serverVersion() + ")", ""));
        }
        int plotBottom = TOP + workloads.size() * groupHeight;
        for (double tick = 0; tick <= max + 1e-9; tick += tickStep(max)) {
            double x = LABEL_WIDTH + tick * scale;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n", x, TOP - 4, x, plotBottom));
            svg.append(text(x - 8, plotBottom + 14, String.format(Locale.ROOT, "%.1f×", tick), "fill=\"#555\""));
        }
        double one = LABEL_WIDTH + scale;
        svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>%n",
                one, TOP - 4, one, plotBottom));
        for (int wi = 0; wi < workloads.size(); wi++) {
            String w = workloads.get(wi);
            int y = TOP + wi * groupHeight;
            svg.append(text(8, y + etcds.size() * BAR_HEIGHT / 2.0 + 4, w, ""));
            for (int ei = 0; ei < etcds.size(); ei++) {
                int by = y + ei * BAR_HEIGHT;
                OptionalDouble r = queen == null ? OptionalDouble.empty() : ratio(queen, etcds.get(ei), w);
                if (r.isEmpty()) {
                    svg.append(text(LABEL_WIDTH + 4, by + BAR_HEIGHT - 2, "n/a", "fill=\"#888\""));
                    continue;
                }
                double barWidth = r.getAsDouble() * scale;
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                        LABEL_WIDTH, by, barWidth, BAR_HEIGHT - 2, COLOURS[ei % COLOURS.length]));
                svg.append(text(LABEL_WIDTH + barWidth + 4, by + BAR_HEIGHT - 2, Ratio.format(r), ""));
            }
        }
        svg.append(text(10, height - 10, "Each bar: ops/s of Queen KV divided by ops/s of that etcd on the same workload. "
                + "Started " + report.startedAt() + "; bench/results/latest.json holds the figures.", "fill=\"#555\" font-size=\"10\""));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static OptionalDouble ratio(SystemResult queen, SystemResult etcd, String workload) {
        WorkloadResult q = queen.workload(workload);
        WorkloadResult e = etcd.workload(workload);
        return Ratio.throughput(q == null ? null : q.measurement(), e == null ? null : e.measurement());
    }

    private static double tickStep(double max) {
        return max <= 2 ? 0.25 : max <= 5 ? 0.5 : Math.ceil(max / 10);
    }

    private static String text(double x, double y, String content, String attributes) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" %s>%s</text>%n", x, y, attributes, escape(content));
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
