package dev.leasehold.micrometer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The series selectors ({@code leasehold_x{label="value"}}) used by the shipped Prometheus rules and Grafana
 * dashboard, read from their expressions: the rules' {@code expr:} values (inline or folded YAML blocks) and the
 * dashboard's {@code "expr"}, {@code "query"} and {@code "definition"} strings. Only equality matchers whose value
 * is not a Grafana variable are kept: those are the ones a scrape must show.
 */
final class QuerySelectors {

    /** One selector: where it came from, the metric name, and its equality matchers. */
    record Selector(String source, String name, Map<String, String> equal) {}

    private static final Pattern SELECTOR = Pattern.compile("\\b(leasehold_[a-z0-9_]+)\\s*(\\{[^}]*\\})?");
    private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(=~|!=|!~|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern JSON_QUERY =
            Pattern.compile("\"(expr|query|definition)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private QuerySelectors() {}

    /** The expressions of a Prometheus rules file: each {@code expr:} value, inline or as a YAML block. */
    static List<String> ruleExpressions(Path rules) throws IOException {
        List<String> lines = Files.readAllLines(rules);
        List<String> exprs = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String trimmed = line.stripLeading();
            if (!trimmed.startsWith("expr:")) {
                continue;
            }
            String value = trimmed.substring("expr:".length()).strip();
            if (!value.isEmpty() && !value.startsWith(">") && !value.startsWith("|")) {
                exprs.add(unquote(value));
                continue;
            }
            int indent = line.length() - trimmed.length();
            StringBuilder block = new StringBuilder();
            while (i + 1 < lines.size()) {
                String next = lines.get(i + 1);
                if (!next.isBlank() && next.length() - next.stripLeading().length() <= indent) {
                    break;
                }
                block.append(next.strip()).append(' ');
                i++;
            }
            exprs.add(block.toString().strip());
        }
        return exprs;
    }

    /** The PromQL strings of a Grafana dashboard: its targets' {@code expr} and its variables' queries. */
    static List<String> dashboardExpressions(Path dashboard) throws IOException {
        Matcher m = JSON_QUERY.matcher(Files.readString(dashboard));
        List<String> exprs = new ArrayList<>();
        while (m.find()) {
            String value = m.group(2).replace("\\\"", "\"").replace("\\\\", "\\");
            if (value.contains("leasehold_")) {
                exprs.add(value);
            }
        }
        return exprs;
    }

    /** Every selector of a leasehold series in {@code expr}. */
    static List<Selector> selectors(String source, String expr) {
        List<Selector> found = new ArrayList<>();
        Matcher m = SELECTOR.matcher(expr);
        while (m.find()) {
            Map<String, String> equal = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher matcher = MATCHER.matcher(m.group(2));
                while (matcher.find()) {
                    if (matcher.group(2).equals("=") && !matcher.group(3).contains("$")) {
                        equal.put(matcher.group(1), matcher.group(3));
                    }
                }
            }
            found.add(new Selector(source, m.group(1), equal));
        }
        return found;
    }

    private static String unquote(String value) {
        if (value.length() >= 2
                && (value.startsWith("\"") && value.endsWith("\"") || value.startsWith("'") && value.endsWith("'"))) {
            return value.substring(1, value.length() - 1);
        }
        return value;
    }
}
