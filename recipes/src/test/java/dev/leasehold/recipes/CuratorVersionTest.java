package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.recipes.CuratorVersion.Found;
import dev.leasehold.recipes.CuratorVersion.Version;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.junit.jupiter.api.Test;

/** Which Curator versions the recipes refuse, run on quietly, or run on with a warning; and where they read it. */
class CuratorVersionTest {

    private static Found both(String version) {
        return new Found(version, version, true);
    }

    @Test
    void versionsParseAndCompareAsNumbersNotText() {
        assertThat(Version.parse("5.9.0")).isEqualTo(new Version(5, 9, 0));
        assertThat(Version.parse("5.10.1-SNAPSHOT")).isEqualTo(new Version(5, 10, 1));
        assertThat(Version.parse("6.0")).isEqualTo(new Version(6, 0, 0));
        assertThat(Version.parse("5.10.0")).isGreaterThan(Version.parse("5.9.0"));
        assertThat(Version.parse("unknown")).isNull();
        assertThat(Version.parse(null)).isNull();
    }

    @Test
    void everyTestedVersionRunsQuietly() {
        for (String v : new String[] {"5.4.0", "5.5.0", "5.6.0", "5.7.0", "5.7.1", "5.8.0", "5.9.0"}) {
            assertThat(CuratorVersion.whyUnsupported(both(v))).as(v).isNull();
            assertThat(CuratorVersion.untested(both(v))).as(v).isNull();
        }
    }

    @Test
    void anOlderVersionIsRefusedNamingTheVersionTheMinimumAndWhy() {
        assertThat(CuratorVersion.whyUnsupported(both("5.3.0")))
                .startsWith("found curator-recipes 5.3.0 but the minimum supported is Curator 5.4.0, because ")
                .contains("CURATOR-644/645")
                .contains("pin org.apache.curator:curator-recipes and curator-framework to 5.4.0 or newer");
        assertThat(CuratorVersion.whyUnsupported(new Found("5.2.1", "5.2.1", false)))
                .startsWith("found curator-recipes 5.2.1 but the minimum supported is Curator 5.4.0, because ")
                .contains("getLastPathIsLeader");
        assertThat(CuratorVersion.whyUnsupported(new Found("4.3.0", "4.3.0", false)))
                .contains("found curator-recipes 4.3.0")
                .contains("Curator 4.x");
    }

    @Test
    void anOldFrameworkUnderANewRecipesJarIsRefusedToo() {
        assertThat(CuratorVersion.whyUnsupported(new Found("5.9.0", "5.2.0", true)))
                .startsWith("found curator-framework 5.2.0 but the minimum supported is Curator 5.4.0");
    }

    @Test
    void anUnreadableVersionRunsWithAWarningUnlessTheNeededApiIsMissing() {
        Found unreadable = new Found(null, null, true);
        assertThat(CuratorVersion.whyUnsupported(unreadable)).isNull();
        assertThat(CuratorVersion.untested(unreadable))
                .startsWith("could not read Curator's version")
                .contains("5.4.0 to 5.9.0");
        assertThat(CuratorVersion.whyUnsupported(new Found(null, null, false)))
                .contains("found curator-recipes version unknown without LeaderLatch.getLastPathIsLeader()")
                .contains("the minimum supported is Curator 5.4.0");
    }

    @Test
    void aNewerOrMixedVersionRunsWithAWarning() {
        assertThat(CuratorVersion.whyUnsupported(both("5.10.0"))).isNull();
        assertThat(CuratorVersion.untested(both("5.10.0"))).contains("newer than 5.9.0");
        assertThat(CuratorVersion.untested(new Found("5.9.0", "5.8.0", true)))
                .contains("curator-recipes 5.9.0 and curator-framework 5.8.0 differ");
    }

    /** The jars on this class path are Curator's own: the manifest names them (whichever version the build chose). */
    @Test
    void theVersionIsReadFromCuratorsOwnJars() {
        String recipes = CuratorVersion.versionOf(LeaderLatch.class, "curator-recipes");
        String framework = CuratorVersion.versionOf(CuratorFramework.class, "curator-framework");
        assertThat(recipes).isEqualTo(framework).isEqualTo(System.getProperty("curator.version", recipes));
        assertThat(Version.parse(recipes)).isGreaterThanOrEqualTo(CuratorVersion.MINIMUM);
        assertThat(CuratorVersion.untested(new Found(recipes, framework, true))).isNull();
    }
}
