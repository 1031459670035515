package dev.leasehold.micrometer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The samples of a Prometheus text exposition (what a scrape returns): names with their labels and values. */
final class ExportedSeries {

    record Sample(String name, Map<String, String> labels, double value) {}

    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final List<Sample> samples = new ArrayList<>();

    ExportedSeries(String exposition) {
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String name;
            Map<String, String> labels = new LinkedHashMap<>();
            if (brace >= 0 && brace < space) {
                name = line.substring(0, brace);
                Matcher m = LABEL.matcher(line.substring(brace, line.lastIndexOf('}') + 1));
                while (m.find()) {
                    labels.put(m.group(1), m.group(2));
                }
            } else {
                name = line.substring(0, space);
            }
            samples.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
        }
    }

    /** The samples of {@code name} whose labels carry every {@code equal} pair. */
    List<Sample> matching(String name, Map<String, String> equal) {
        return samples.stream()
                .filter(s -> s.name().equals(name))
                .filter(s -> equal.entrySet().stream()
                        .allMatch(e -> e.getValue().equals(s.labels().get(e.getKey()))))
                .toList();
    }

    int size() {
        return samples.size();
    }
}
