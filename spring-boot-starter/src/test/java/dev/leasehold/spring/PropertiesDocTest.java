package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 46: docs/spring-boot.md's property table lists every property of the starter's configuration metadata
 * ({@code META-INF/spring-configuration-metadata.json}, generated from the properties records), one row each, and
 * nothing else (before, it lacked {@code leasehold.election.backend}, {@code leasehold.election.lease.*} and {@code
 * leasehold.election.progress-deadline}).
 */
class PropertiesDocTest {

    private static final Pattern NAME = Pattern.compile("\"name\"\\s*:\\s*\"(leasehold\\.[^\"]+)\"");
    private static final Pattern ROW = Pattern.compile("(?m)^\\| `(leasehold\\.[a-z0-9.-]+)` \\|");

    @Test
    void everyPropertyOfTheMetadataHasItsRowInTheDocAndEveryRowIsAProperty() throws IOException {
        TreeSet<String> properties = metadataProperties();
        assertThat(properties).contains("leasehold.election.backend", "leasehold.election.lease.lease-duration");
        String doc = Files.readString(root().resolve("docs/spring-boot.md"), StandardCharsets.UTF_8);
        TreeSet<String> rows = new TreeSet<>();
        Matcher row = ROW.matcher(doc);
        while (row.find()) {
            rows.add(row.group(1));
        }
        List<String> missing = new ArrayList<>();
        for (String property : properties) {
            if (!rows.contains(property)) {
                missing.add("| `" + property + "` | ... | ... |");
            }
        }
        assertThat(missing)
                .as(
                        "rows to add to the property table of docs/spring-boot.md (from spring-configuration-metadata.json)")
                .isEmpty();
        rows.removeAll(properties);
        assertThat(rows)
                .as("rows of docs/spring-boot.md that name no property of the metadata")
                .isEmpty();
    }

    private static TreeSet<String> metadataProperties() throws IOException {
        String json;
        try (InputStream in =
                PropertiesDocTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the configuration processor's metadata").isNotNull();
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        int properties = json.indexOf("\"properties\"");
        int hints = json.indexOf("\"hints\"", properties);
        String section = json.substring(properties, hints < 0 ? json.length() : hints);
        TreeSet<String> names = new TreeSet<>();
        Matcher name = NAME.matcher(section);
        while (name.find()) {
            names.add(name.group(1));
        }
        return names;
    }

    private static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("docs/spring-boot.md"))) {
                return p;
            }
        }
        throw new IllegalStateException(
                "no docs/spring-boot.md above " + Path.of("").toAbsolutePath());
    }
}
