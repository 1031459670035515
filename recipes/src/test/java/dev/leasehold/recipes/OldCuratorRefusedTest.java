package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A user whose build resolved an old Curator (another library's, by Maven's nearest-wins) is refused at {@code
 * start()}, with one message that names the version found, the minimum and why, instead of running on a Curator
 * whose defects the recipes were never tested against. The old jars (Curator {@code curator.refused.version} of the
 * recipes' POM, copied to {@code target/refused-curator} by the build) replace the current ones in a child JVM.
 */
@Timeout(120)
class OldCuratorRefusedTest {

    private static final Path OLD_JARS = Path.of(System.getProperty("basedir", "."), "target", "refused-curator");

    @Test
    void aCuratorOlderThanTheMinimumIsRefusedAtStartWithTheVersionFoundTheMinimumAndWhy() throws Exception {
        List<String> oldJars;
        try (Stream<Path> files = Files.list(OLD_JARS)) {
            oldJars = files.map(Path::toString)
                    .filter(f -> f.endsWith(".jar"))
                    .sorted()
                    .toList();
        }
        assertThat(oldJars).as("the old Curator's jars in %s", OLD_JARS).hasSize(3);
        String oldVersion = versionOf(oldJars.get(0));

        List<String> lines = runWithCurator(oldJars);

        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("latch REFUSED FencedLeaderLatch 'p-latch' on /refused/latch cannot start");
        assertThat(lines.get(1))
                .startsWith("selector REFUSED FencedLeaderSelector 'p-selector' on /refused/selector cannot start");
        for (String line : lines) {
            assertThat(line)
                    .contains("found curator-recipes " + oldVersion)
                    .contains("the minimum supported is Curator 5.4.0")
                    .contains("because ")
                    .contains("CURATOR-644");
        }
    }

    /** The child's output lines; the current Curator jars are taken off its class path, the old ones put on it. */
    private static List<String> runWithCurator(List<String> oldJars) throws IOException, InterruptedException {
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (!name.matches("curator-(framework|recipes|client)-.*\\.jar")) {
                classPath.add(entry);
            }
        }
        classPath.addAll(oldJars);
        String java = ProcessHandle.current().info().command().orElse("java");
        Process child = new ProcessBuilder(
                        java,
                        "-Xmx128m",
                        "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=off",
                        "-cp",
                        String.join(File.pathSeparator, classPath),
                        RefusedCuratorMain.class.getName())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            List<String> lines = out.lines().collect(Collectors.toList());
            assertThat(child.waitFor(60, TimeUnit.SECONDS))
                    .as("the child JVM ended")
                    .isTrue();
            return lines;
        } finally {
            child.destroyForcibly();
        }
    }

    /** {@code .../curator-client-5.3.0.jar} -> {@code 5.3.0}. */
    private static String versionOf(String jar) {
        String name = Path.of(jar).getFileName().toString();
        return name.substring(name.lastIndexOf('-') + 1, name.length() - ".jar".length());
    }
}
