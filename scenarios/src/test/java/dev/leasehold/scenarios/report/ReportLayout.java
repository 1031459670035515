package dev.leasehold.scenarios.report;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Reads every {@code <svg>} of a report as XML and says what a reader could not read: a label that runs out of its
 * bar, a label over another label or over a mark, a label that a pause hatch is painted over, a label outside the
 * picture. Text widths are estimated conservatively from the font size ({@link TextWidth}: at least DejaVu Sans's
 * and Verdana's widths), heights from the font's ascent and descent.
 */
public final class ReportLayout {

    private static final Pattern SVG = Pattern.compile("<svg\\b.*?</svg>", Pattern.DOTALL);
    private static final Pattern RUN = Pattern.compile("data-run=\"([^\"]*)\"");
    private static final Pattern PATH_STEP = Pattern.compile("([MmLlZz])\\s*(-?[\\d.]+)?[\\s,]*(-?[\\d.]+)?");

    private record Box(double x0, double y0, double x1, double y1) {
        boolean intersects(Box o) {
            return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1;
        }

        boolean contains(Box o) {
            return o.x0 >= x0 - 0.01 && o.x1 <= x1 + 0.01 && o.y0 >= y0 - 0.01 && o.y1 <= y1 + 0.01;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "[%.1f..%.1f x %.1f..%.1f]", x0, x1, y0, y1);
        }
    }

    private record Shape(String kind, String text, Box box, int order) {}

    private ReportLayout() {}

    /** Every svg in the page, checked; each problem names the run and the label. Empty when all is legible. */
    public static List<String> problems(String html) {
        List<String> problems = new ArrayList<>();
        Matcher svg = SVG.matcher(html);
        while (svg.find()) {
            String run = "?";
            Matcher runs = RUN.matcher(html.substring(0, svg.start()));
            while (runs.find()) {
                run = runs.group(1);
            }
            problems.addAll(problemsOf(run, svg.group()));
        }
        return problems;
    }

    /** The text of every {@code <text>} in the page's svgs, in order. */
    public static List<String> texts(String html) {
        List<String> texts = new ArrayList<>();
        Matcher svg = SVG.matcher(html);
        while (svg.find()) {
            Element root = parse(svg.group());
            for (Element e : elements(root)) {
                if (e.getTagName().equals("text")) {
                    texts.add(e.getTextContent());
                }
            }
        }
        return texts;
    }

    private static List<String> problemsOf(String run, String svgText) {
        Element root = parse(svgText);
        double width = number(root, "width");
        double height = number(root, "height");
        Box picture = new Box(0, 0, width, height);
        List<Shape> texts = new ArrayList<>();
        List<Shape> bars = new ArrayList<>();
        List<Shape> pauses = new ArrayList<>();
        List<Shape> marks = new ArrayList<>();
        int order = 0;
        for (Element e : elements(root)) {
            order++;
            String css = e.getAttribute("class");
            switch (e.getTagName()) {
                case "text" -> texts.add(new Shape("text", e.getTextContent(), textBox(e), order));
                case "rect" -> {
                    Box box = rectBox(e);
                    if (css.contains("pause")) {
                        pauses.add(new Shape("pause", css, box, order));
                    } else if (css.contains("leadership") || css.contains("lease") || css.contains("work")) {
                        bars.add(new Shape("bar", css, box, order));
                    }
                }
                case "circle" -> {
                    double cx = number(e, "cx");
                    double cy = number(e, "cy");
                    double r = number(e, "r");
                    marks.add(new Shape("mark", "circle", new Box(cx - r, cy - r, cx + r, cy + r), order));
                }
                case "path" -> marks.add(new Shape("mark", "path", pathBox(e.getAttribute("d")), order));
                default -> {}
            }
        }
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            Shape text = texts.get(i);
            String what = run + ": '" + text.text() + "' " + text.box();
            if (!picture.contains(text.box())) {
                problems.add(what + " runs outside the picture " + picture);
            }
            for (int j = i + 1; j < texts.size(); j++) {
                Shape other = texts.get(j);
                if (text.box().intersects(other.box())) {
                    problems.add(what + " overlaps '" + other.text() + "' " + other.box());
                }
            }
            for (Shape bar : bars) {
                if (text.box().intersects(bar.box()) && !bar.box().contains(text.box())) {
                    problems.add(what + " overflows the bar " + bar.text() + " " + bar.box());
                }
            }
            for (Shape pause : pauses) {
                if (pause.order() > text.order() && pause.box().intersects(text.box())) {
                    problems.add(what + " is under a pause hatch " + pause.box());
                }
            }
            for (Shape mark : marks) {
                if (mark.box().intersects(text.box())) {
                    problems.add(what + " covers a mark " + mark.box());
                }
            }
        }
        return problems;
    }

    private static Box textBox(Element text) {
        double size = text.hasAttribute("font-size")
                ? number(text, "font-size")
                : text.getAttribute("class").contains("label") ? 10 : 11;
        boolean bold = "bold".equals(text.getAttribute("font-weight"));
        double w = TextWidth.of(text.getTextContent(), size, bold);
        double x = number(text, "x");
        double y = number(text, "y");
        String anchor = text.getAttribute("text-anchor");
        double x0 = anchor.equals("end") ? x - w : anchor.equals("middle") ? x - w / 2 : x;
        return new Box(x0, y - TextWidth.ascent(size), x0 + w, y + TextWidth.descent(size));
    }

    private static Box rectBox(Element rect) {
        double x = number(rect, "x");
        double y = number(rect, "y");
        return new Box(x, y, x + number(rect, "width"), y + number(rect, "height"));
    }

    /** The bounding box of a path of M, m, L, l and z steps (the marks' paths use no curves). */
    private static Box pathBox(String d) {
        double x = 0;
        double y = 0;
        double x0 = Double.MAX_VALUE;
        double y0 = Double.MAX_VALUE;
        double x1 = -Double.MAX_VALUE;
        double y1 = -Double.MAX_VALUE;
        Matcher step = PATH_STEP.matcher(d);
        while (step.find()) {
            String command = step.group(1);
            if (command.equalsIgnoreCase("z")) {
                continue;
            }
            double dx = Double.parseDouble(step.group(2));
            double dy = Double.parseDouble(step.group(3));
            boolean relative = Character.isLowerCase(command.charAt(0));
            x = relative ? x + dx : dx;
            y = relative ? y + dy : dy;
            x0 = Math.min(x0, x);
            y0 = Math.min(y0, y);
            x1 = Math.max(x1, x);
            y1 = Math.max(y1, y);
        }
        return new Box(x0, y0, x1, y1);
    }

    private static double number(Element e, String attribute) {
        String value = e.getAttribute(attribute);
        if (value.isEmpty()) {
            throw new IllegalArgumentException("<" + e.getTagName() + "> has no " + attribute);
        }
        return Double.parseDouble(value.replace("px", ""));
    }

    private static Element parse(String svg) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder()
                    .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)))
                    .getDocumentElement();
        } catch (Exception e) {
            throw new AssertionError("an svg of the report is not well-formed XML: " + e.getMessage(), e);
        }
    }

    /** The elements under root in document order (the order they are painted), definitions left out. */
    private static List<Element> elements(Element root) {
        List<Element> out = new ArrayList<>();
        collect(root, out);
        return out;
    }

    private static void collect(Node node, List<Element> out) {
        for (Node child = node.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element e && !e.getTagName().equals("defs")) {
                out.add(e);
                collect(e, out);
            }
        }
    }
}
