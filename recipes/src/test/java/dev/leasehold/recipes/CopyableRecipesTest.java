package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The copy-into-your-code table (docs): each recipe's files compile on their own against Curator, ZooKeeper and
 * SLF4J, without the rest of this module.
 */
class CopyableRecipesTest {

    record Recipe(String name, List<String> files) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Recipe> recipes() {
        return Stream.of(
                new Recipe(
                        "latch",
                        List.of(
                                "FencedLeaderLatch",
                                "FencedLeaderListener",
                                "FencingToken",
                                "LossCause",
                                "LeaderInfo",
                                "ElectionNodes",
                                "CuratorTap",
                                "RecipeThread",
                                "LatchListeners",
                                "ListenerCalls")),
                new Recipe(
                        "selector",
                        List.of(
                                "FencedLeaderSelector",
                                "FencedLeaderSelectorListener",
                                "FencingToken",
                                "LossCause",
                                "LeaderInfo",
                                "ElectionNodes",
                                "CuratorTap")),
                new Recipe(
                        "partitions",
                        List.of(
                                "FencedPartitions",
                                "FencedPartitionListener",
                                "PartitionAssignment",
                                "PartitionNodes",
                                "PartitionGrants",
                                "FencingToken",
                                "LossCause",
                                "LeaderInfo",
                                "ElectionNodes",
                                "RecipeThread")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void eachRecipesFilesCompileOnTheirOwn(Recipe recipe) throws Exception {
        Path sources = Path.of("src/main/java/dev/leasehold/recipes");
        List<String> args = new ArrayList<>();
        Path out = Files.createTempDirectory("copied-" + recipe.name());
        String classPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.replace('\\', '/').contains("/target/"))
                .collect(Collectors.joining(File.pathSeparator));
        args.addAll(List.of("-proc:none", "-Xlint:all", "-Werror", "-d", out.toString(), "-cp", classPath));
        for (String file : recipe.files()) {
            args.add(sources.resolve(file + ".java").toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter errors = new StringWriter();
        int status = javac.getTask(
                                errors,
                                null,
                                null,
                                args.subList(0, args.size() - recipe.files().size()),
                                null,
                                javac.getStandardFileManager(null, null, null)
                                        .getJavaFileObjectsFromStrings(args.subList(
                                                args.size() - recipe.files().size(), args.size())))
                        .call()
                ? 0
                : 1;
        assertThat(errors.toString())
                .as("javac's output for the %s files", recipe.name())
                .isEmpty();
        assertThat(status).isZero();
        try (Stream<Path> classes = Files.walk(out)) {
            assertThat(classes.filter(f -> f.toString().endsWith(".class")).count())
                    .isGreaterThanOrEqualTo(recipe.files().size());
        }
    }
}
