package io.queenkv.bench.report;

import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

import io.queenkv.bench.report.Results.BenchReport;
import io.queenkv.bench.report.Results.SystemResult;
import io.queenkv.bench.report.Results.WorkloadResult;

/**
 * A horizontal bar chart, as plain SVG, of Queen KV's throughput divided by each etcd's, one group of
 * bars per workload, with a line at 1× (equal throughput). The axis is logarithmic, so 0.1× and 10×
 * are the same distance from 1×, and small ratios stay readable.
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

        double lowest = 0.1;
        double highest = 10;
        if (queen != null)
            for (String w : workloads)
                for (SystemResult e : etcds) {
                    OptionalDouble r = ratio(queen, e, w);
                    if (r.isEmpty() || r.getAsDouble() <= 0) continue;
                    lowest = Math.min(lowest, r.getAsDouble());
                    highest = Math.max(highest, r.getAsDouble());
                }
        LogAxis axis = new LogAxis(Math.floor(Math.log10(lowest)), Math.ceil(Math.log10(highest)));

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
        for (double decade = axis.fromExponent(); decade <= axis.toExponent(); decade++) {
            for (double step : new double[] {1, 3}) {
                double tick = step * Math.pow(10, decade);
                if (Math.log10(tick) > axis.toExponent() + 1e-9) continue;
                double x = LABEL_WIDTH + axis.x(tick);
                svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n", x, TOP - 4, x, plotBottom));
                svg.append(text(x - 10, plotBottom + 14, tickLabel(tick), "fill=\"#555\""));
            }
        }
        double one = LABEL_WIDTH + axis.x(1);
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
                double barWidth = Math.max(1, axis.x(r.getAsDouble()));
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                        LABEL_WIDTH, by, barWidth, BAR_HEIGHT - 2, COLOURS[ei % COLOURS.length]));
                svg.append(text(LABEL_WIDTH + barWidth + 4, by + BAR_HEIGHT - 2, Ratio.format(r), ""));
            }
        }
        svg.append(text(10, height - 10, "Each bar: Queen KV ops/s ÷ that etcd's ops/s on the same workload (log scale). Run of "
                + report.startedAt().substring(0, 16) + " UTC; figures in bench/results/latest.json.", "fill=\"#555\" font-size=\"10\""));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static OptionalDouble ratio(SystemResult queen, SystemResult etcd, String workload) {
        WorkloadResult q = queen.workload(workload);
        WorkloadResult e = etcd.workload(workload);
        return Ratio.throughput(q == null ? null : q.measurement(), e == null ? null : e.measurement());
    }

    /** Maps a ratio to a distance from the left edge of the plot: 10^fromExponent … 10^toExponent over PLOT_WIDTH. */
    record LogAxis(double fromExponent, double toExponent) {
        double x(double ratio) {
            return (Math.log10(ratio) - fromExponent) / (toExponent - fromExponent) * PLOT_WIDTH;
        }
    }

    private static String tickLabel(double tick) {
        return (tick >= 1 ? String.format(Locale.ROOT, "%.0f", tick) : String.format(Locale.ROOT, "%s", (float) tick)) + "×";
    }

    private static String text(double x, double y, String content, String attributes) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" %s>%s</text>%n", x, y, attributes, escape(content));
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
