package dev.leasehold.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * README.md and the pages of docs/ say only what compiles and what exists: every Java snippet is compiled against this
 * build's classes, each recipe's copy set (the table in docs/recipes.md) compiles alone on Curator and SLF4J, every
 * relative link leads to a file (and a heading, if it names one), and the README stays a page.
 *
 * <p>Each {@code java} block is preceded by a directive: {@code <!-- snippet: body -->} (statements, compiled as the
 * body of a method of a {@link DocsSnippetContext} subclass; its {@code import} lines go to the top), {@code <!--
 * snippet: members -->} (methods and fields of such a class), or {@code <!-- snippet: none (why) -->}. A line that is
 * only {@code ...} and an initializer {@code = ...;} stand for the reader's code.
 */
@Timeout(120)
class DocsTest {

    private static final Path ROOT = root();
    private static final int README_MAX_LINES = 400;
    private static final Pattern DIRECTIVE = Pattern.compile("<!-- snippet: (body|members|none)\\b.*-->");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern COPY_ROW =
            Pattern.compile("^\\| (\\w+) \\| (`\\w+\\.java`(?:, `\\w+\\.java`)*) \\|$", Pattern.MULTILINE);
    private static final List<String> IMPORTS = List.of(
            "java.io.*",
            "java.sql.*",
            "java.time.*",
            "java.util.*",
            "java.util.concurrent.*",
            "javax.sql.DataSource",
            "org.apache.curator.framework.*",
            "org.apache.curator.retry.*",
            "io.micrometer.core.instrument.MeterRegistry",
            "dev.leasehold.recipes.*",
            "dev.leasehold.store.*",
            "dev.leasehold.store.claims.*",
            "dev.leasehold.store.slots.*",
            "dev.leasehold.store.outbox.*",
            "dev.leasehold.testkit.*",
            "dev.leasehold.micrometer.*");

    @TempDir
    Path dir;

    @Test
    void readmeFitsOnAPage() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        assertThat(lines.size()).as("README.md lines").isLessThanOrEqualTo(README_MAX_LINES);
    }

    @Test
    void everyJavaSnippetCompiles() throws IOException {
        List<Snippet> snippets = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Path page : pages()) {
            snippets.addAll(snippets(page, problems));
        }
        assertThat(problems).as("java blocks without a directive").isEmpty();
        assertThat(snippets).as("compiled snippets").hasSizeGreaterThanOrEqualTo(10);
        Path src = Files.createDirectories(dir.resolve("src/docsnippets"));
        Map<String, Snippet> byFile = new TreeMap<>();
        for (Snippet snippet : snippets) {
            Path file = src.resolve(snippet.className() + ".java");
            Files.writeString(file, snippet.source(), StandardCharsets.UTF_8);
            byFile.put(file.toAbsolutePath().toString(), snippet);
        }
        List<String> errors = compile(byFile.keySet().stream().map(Path::of).toList(), classPath(), diagnostic -> {
            Snippet snippet = byFile.get(
                    Path.of(diagnostic.getSource().toUri()).toAbsolutePath().toString());
            return snippet.where((int) diagnostic.getLineNumber()) + ": " + diagnostic.getMessage(Locale.ROOT);
        });
        assertThat(errors).as("snippets that do not compile").isEmpty();
    }

    @Test
    void eachRecipeCopySetCompilesAloneOnCuratorAndSlf4j() throws IOException {
        String recipes = Files.readString(ROOT.resolve("docs/recipes.md"), StandardCharsets.UTF_8);
        Path sources = ROOT.resolve("recipes/src/main/java/dev/leasehold/recipes");
        String curatorOnly = Stream.of(classPath().split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).toAbsolutePath().startsWith(ROOT))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("leasehold-"))
                .collect(Collectors.joining(File.pathSeparator));
        Matcher row = COPY_ROW.matcher(recipes);
        int sets = 0;
        while (row.find()) {
            sets++;
            List<Path> files = Stream.of(row.group(2).split(", "))
                    .map(name -> sources.resolve(name.replace("`", "")))
                    .toList();
            List<String> errors = compile(
                    files,
                    curatorOnly,
                    diagnostic -> row.group(1) + ": " + diagnostic.getSource().getName() + ":"
                            + diagnostic.getLineNumber() + ": " + diagnostic.getMessage(Locale.ROOT));
            assertThat(errors)
                    .as("the " + row.group(1) + " copy set, compiled alone")
                    .isEmpty();
        }
        assertThat(sets).as("copy sets in docs/recipes.md").isGreaterThanOrEqualTo(2);
    }

    @Test
    void everyRelativeLinkLeadsToAFileAndHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http, https, mailto: not checked here
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved =
                        file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                } else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    // ---- helpers --------------------------------------------------------------------------------------------------

    /** A java block of a page, with what it compiles as. */
    private record Snippet(Path page, int firstLine, String kind, List<String> lines) {

        String className() {
            String name = ROOT.relativize(page).toString().replaceAll("[^A-Za-z0-9]", "_");
            return "Snippet_" + name + "_" + firstLine;
        }

        /** The generated source: the snippet's imports, then its lines at a known offset (see {@link #where}). */
        String source() {
            StringBuilder out = new StringBuilder("package docsnippets;\n");
            IMPORTS.forEach(i -> out.append("import ").append(i).append(";\n"));
            out.append("import static org.assertj.core.api.Assertions.assertThat;\n");
            for (String line : lines) {
                out.append(line.startsWith("import ") ? line : "").append('\n');
            }
            out.append("@SuppressWarnings(\"all\") public class ")
                    .append(className())
                    .append(" extends dev.leasehold.scenarios.DocsSnippetContext {\n");
            out.append(kind.equals("body") ? "void run() throws Exception {\n" : "\n");
            for (String line : lines) {
                out.append(line.startsWith("import ") ? "" : placeholders(line)).append('\n');
            }
            out.append(kind.equals("body") ? "}\n}\n" : "}\n");
            return out.toString();
        }

        /** Where a line of the generated source comes from, as page:line. */
        String where(int generatedLine) {
            int header = 1 + IMPORTS.size() + 1 + lines.size() + 2;
            int offset = generatedLine - header;
            String at = offset >= 1 && offset <= lines.size()
                    ? Integer.toString(firstLine + offset - 1)
                    : firstLine + " (generated line " + generatedLine + ")";
            return ROOT.relativize(page) + ":" + at;
        }

        private static String placeholders(String line) {
            if (line.strip().equals("...")) {
                return "// ...";
            }
            return line.replace("= ...;", "= null;");
        }
    }

    private static List<Snippet> snippets(Path page, List<String> problems) throws IOException {
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        List<Snippet> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```java")) {
                continue;
            }
            int before = i - 1;
            while (before >= 0 && lines.get(before).isBlank()) {
                before--;
            }
            Matcher directive =
                    before >= 0 ? DIRECTIVE.matcher(lines.get(before).strip()) : null;
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).strip().equals("```")) {
                end++;
            }
            if (directive == null || !directive.matches()) {
                problems.add(ROOT.relativize(page) + ":" + (i + 1)
                        + ": a java block needs <!-- snippet: body|members|none (why) --> before it");
            } else if (!directive.group(1).equals("none")) {
                found.add(new Snippet(page, i + 2, directive.group(1), lines.subList(i + 1, end)));
            }
            i = end;
        }
        return found;
    }

    private interface Describer {
        String describe(Diagnostic<? extends JavaFileObject> diagnostic);
    }

    private List<String> compile(List<Path> files, String classPath, Describer describer) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path out = Files.createTempDirectory(dir, "classes");
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            List<String> options =
                    List.of("--release", "17", "-proc:none", "-classpath", classPath, "-d", out.toString());
            StringWriter log = new StringWriter();
            javac.getTask(log, fileManager, diagnostics, options, null, fileManager.getJavaFileObjectsFromPaths(files))
                    .call();
        }
        return diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .map(d -> d.getSource() == null ? d.getMessage(Locale.ROOT) : describer.describe(d))
                .toList();
    }

    private static String classPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The anchors GitHub gives the headings of a markdown file. */
    private static List<String> anchors(Path file) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                .filter(line -> line.startsWith("#"))
                .map(line -> line.replaceFirst("^#+\\s*", "")
                        .toLowerCase(Locale.ROOT)
                        .replaceAll("[^a-z0-9 _-]", "")
                        .replace(' ', '-'))
                .toList();
    }

    private static Path root() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("README.md")) && Files.isDirectory(p.resolve("recipes"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root (README.md beside recipes/) above " + here);
    }
}
