package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.application.port.out.UsageQueries.DailyUsage;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * HTTP adapter: bar charts of daily usage as SVG geometry for the Thymeleaf template — drawn on the server, so the
 * page needs no chart library and no script, and every bar carries its day and value as a tooltip ({@code <title>})
 * and as data attributes. Integer arithmetic only: a bar's height is its value's share of the largest day's.
 */
final class UsageCharts {

    static final int WIDTH = 720;
    static final int HEIGHT = 220;
    private static final int LEFT = 8;
    private static final int RIGHT = 8;
    private static final int TOP = 22;
    private static final int BOTTOM = 24;
    private static final DateTimeFormatter LABEL = DateTimeFormatter.ofPattern("MMM d", java.util.Locale.ENGLISH);

    private UsageCharts() {
    }

    /** {@code value}'s share of {@code plotHeight} as {@code max} is to it; a day with any value shows at least 1. */
    static int barHeight(long value, long max, int plotHeight) {
        if (max <= 0 || value <= 0) {
            return 0;
        }
        long height = java.math.BigInteger.valueOf(value).multiply(java.math.BigInteger.valueOf(plotHeight))
                .divide(java.math.BigInteger.valueOf(max)).longValue();
        return (int) Math.max(1, height);
    }

    /**
     * One chart: {@code value} gives each day's number, {@code format} its text (e.g. "$0.000034", "1,234 tokens").
     * The template draws the bars, the base line, the largest value and a few day labels.
     */
    static Map<String, Object> bars(List<DailyUsage> days, ToLongFunction<DailyUsage> value,
            Function<Long, String> format, String unit) {
        long max = 0;
        for (DailyUsage day : days) {
            max = Math.max(max, value.applyAsLong(day));
        }
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        int slot = days.isEmpty() ? plotWidth : plotWidth / days.size();
        int barWidth = Math.max(1, slot - Math.max(1, slot / 5));
        List<Map<String, Object>> bars = new ArrayList<>();
        List<Map<String, Object>> labels = new ArrayList<>();
        for (int i = 0; i < days.size(); i++) {
            DailyUsage day = days.get(i);
            long v = value.applyAsLong(day);
            int height = barHeight(v, max, plotHeight);
            int x = LEFT + i * slot + (slot - barWidth) / 2;
            Map<String, Object> bar = new LinkedHashMap<>();
            bar.put("x", x);
            bar.put("y", TOP + plotHeight - height);
            bar.put("width", barWidth);
            bar.put("height", height);
            bar.put("day", day.day().toString());
            bar.put("value", format.apply(v));
            bar.put("title", day.day() + ": " + format.apply(v) + " (" + day.requests()
                    + (day.requests() == 1 ? " request)" : " requests)"));
            bars.add(bar);
            if (i == 0 || i == days.size() - 1 || (days.size() > 10 && i == days.size() / 2)) {
                Map<String, Object> label = new LinkedHashMap<>();
                label.put("x", x + barWidth / 2);
                label.put("text", LABEL.format(day.day()));
                label.put("anchor", i == 0 ? "start" : i == days.size() - 1 ? "end" : "middle");
                labels.add(label);
            }
        }
        Map<String, Object> chart = new LinkedHashMap<>();
        chart.put("width", WIDTH);
        chart.put("height", HEIGHT);
        chart.put("bars", bars);
        chart.put("labels", labels);
        chart.put("baseY", TOP + plotHeight);
        chart.put("labelY", HEIGHT - 6);
        chart.put("left", LEFT);
        chart.put("right", WIDTH - RIGHT);
        chart.put("maxText", max == 0 ? "no " + unit + " in this period" : "highest day: " + format.apply(max));
        chart.put("empty", max == 0);
        return chart;
    }
}
