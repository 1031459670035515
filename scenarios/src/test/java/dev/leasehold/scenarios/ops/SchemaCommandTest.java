package dev.leasehold.scenarios.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.Database;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Issue 46, the DDL for a DBA: {@code schema --ddl --dialect postgresql|mariadb|h2 [--prefix P]} prints {@link
 * FencedSchema#ddl} as a script (before, it was reachable only from Java), the script applied to an empty H2 passes
 * {@link FencedSchema#verify}, and docs/schema/*.sql are that output for the default prefix: they cannot drift.
 */
class SchemaCommandTest {

    private static final List<Database> DIALECTS = List.of(Database.POSTGRESQL, Database.MARIADB, Database.H2);

    @Test
    void schemaDdlPrintsAScriptThatInstallsAVerifiableSchema() throws SQLException {
        Run run = Run.of("schema", "--ddl", "--dialect", "h2", "--prefix", "dba_");
        assertThat(run.exitCode).as(run.all()).isZero();
        assertThat(run.out)
                .startsWith("-- Leasehold fenced store schema, version " + FencedSchema.currentVersion())
                .contains("CREATE TABLE IF NOT EXISTS dba_fence (")
                .isEqualTo(
                        SchemaCommand.script(Database.H2, StoreConfig.defaults().withTablePrefix("dba_")));

        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:schema-command;DB_CLOSE_DELAY=-1");
        try (Connection c = h2.getConnection();
                Statement s = c.createStatement()) {
            s.execute("RUNSCRIPT FROM '" + writeScript(run.out) + "'");
        }
        FencedSchema.verify(h2, StoreConfig.defaults().withTablePrefix("dba_"));
    }

    @Test
    void everyDialectPrintsAndABadOneIsRefused() {
        for (Database database : DIALECTS) {
            Run run = Run.of("schema", "--ddl", "--dialect", database.name().toLowerCase(Locale.ROOT));
            assertThat(run.exitCode).as(run.all()).isZero();
            assertThat(run.out).isEqualTo(SchemaCommand.script(database, StoreConfig.defaults()));
        }
        Run bad = Run.of("schema", "--ddl", "--dialect", "oracle");
        assertThat(bad.exitCode).isEqualTo(2);
        assertThat(bad.err).contains("--dialect must be postgresql, mariadb or h2, was 'oracle'");
        Run badPrefix = Run.of("schema", "--ddl", "--dialect", "h2", "--prefix", "Bad-Prefix");
        assertThat(badPrefix.exitCode).isEqualTo(2);
        assertThat(badPrefix.err).contains("--prefix");
    }

    @Test
    void theSqlFilesUnderDocsAreTheCommandsOutput() throws IOException {
        Path docs = root().resolve("docs/schema");
        List<String> stale = new ArrayList<>();
        for (Database database : DIALECTS) {
            String name = database.name().toLowerCase(Locale.ROOT);
            Path file = docs.resolve(name + ".sql");
            String expected = SchemaCommand.script(database, StoreConfig.defaults());
            if (!Files.exists(file)
                    || !Files.readString(file, StandardCharsets.UTF_8).equals(expected)) {
                stale.add("docs/schema/" + name + ".sql differs from FencedSchema.ddl; regenerate it: java -jar"
                        + " scenarios/target/leasehold-scenarios.jar schema --ddl --dialect " + name
                        + " > docs/schema/" + name + ".sql");
            }
        }
        assertThat(stale).as("docs/schema/*.sql").isEmpty();
    }

    private static String writeScript(String script) {
        try {
            Path file = Files.createTempFile("leasehold-ddl", ".sql");
            file.toFile().deleteOnExit();
            Files.writeString(file, script, StandardCharsets.UTF_8);
            return file.toAbsolutePath().toString().replace("'", "''");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))) {
                return p;
            }
        }
        throw new IllegalStateException(
                "no repository root above " + Path.of("").toAbsolutePath());
    }

    private record Run(int exitCode, String out, String err) {
        static Run of(String... args) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = dev.leasehold.scenarios.cli.Main.execute(
                    args,
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }

        String all() {
            return "exit " + exitCode + "\n--- out\n" + out + "\n--- err\n" + err;
        }
    }
}
