package dev.leasehold.recipes;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Curator the recipes run on, checked at every {@code start()} against the range they were tested with.
 *
 * <p>Applications often get Curator through another library (Hadoop, Druid, HBase pin their own), and Maven's
 * nearest-wins rule then hands the recipes that version without a word. So each recipe's {@code start()} reads the
 * versions of the two Curator jars it uses, {@code curator-recipes} (LeaderLatch, LeaderSelector) and {@code
 * curator-framework}, and:
 * <ul>
 *   <li>refuses, with one {@link IllegalStateException} naming the version found, the minimum and why, any version
 *       below {@link #MINIMUM} (see {@link #whyUnsupported});</li>
 *   <li>runs, with one WARN per JVM, on a version newer than {@link #NEWEST_TESTED}, on two jars of different
 *       versions, and when a version cannot be read;</li>
 *   <li>runs quietly on a tested version.</li>
 * </ul>
 *
 * <p>Where the version is read: the jar's manifest, as the JVM attached it to the class's package ({@code
 * Implementation-Version}), but only if that manifest is Curator's own ({@code Implementation-Title} starts with
 * "Curator"): a shaded ("uber") jar carries the application's manifest, whose version says nothing about Curator.
 * Failing that, the {@code pom.properties} Maven put in Curator's jar (shading keeps it). When neither can be read,
 * the version is unknown: the recipes run, log one WARN saying so, and keep the recovery they have for older
 * Curators' defects switched on (it is on for every version: it acts only on a stuck or tokenless state); but if
 * the one Curator method the recipes need that old Curators lack ({@code LeaderLatch.getLastPathIsLeader()}, added
 * in 5.3.0) is missing, the Curator is refused as older than 5.3.0.
 *
 * <p>Thread-safety: stateless apart from the once-per-JVM warnings; safe from any thread. Reads the class path once
 * per call (a few microseconds): {@code start()} is not a hot path.
 */
final class CuratorVersion {

    /** The oldest Curator the recipes were tested with and support. */
    static final Version MINIMUM = new Version(5, 4, 0);

    /** The newest Curator the recipes were tested with. */
    static final Version NEWEST_TESTED = new Version(5, 9, 0);

    private static final Logger log = LoggerFactory.getLogger(CuratorVersion.class);

    /** One WARN per JVM for a Curator the recipes run on without having been tested with it. */
    private static final AtomicBoolean warned = new AtomicBoolean();

    private CuratorVersion() {}

    /** A Curator release number; qualifiers such as {@code -SNAPSHOT} are ignored. */
    record Version(int major, int minor, int patch) implements Comparable<Version> {

        /**
         * @param text such as {@code 5.9.0}, {@code 5.10.1-SNAPSHOT} or {@code 6.0}
         * @return the version, or {@code null} if {@code text} does not start with a number
         */
        static Version parse(String text) {
            if (text == null) {
                return null;
            }
            String[] parts = text.trim().split("[.-]", 4);
            int[] numbers = new int[3];
            for (int i = 0; i < 3; i++) {
                if (i >= parts.length || !parts[i].matches("\\d{1,6}")) {
                    if (i == 0) {
                        return null;
                    }
                    break;
                }
                numbers[i] = Integer.parseInt(parts[i]);
            }
            return new Version(numbers[0], numbers[1], numbers[2]);
        }

        @Override
        public int compareTo(Version other) {
            int c = Integer.compare(major, other.major);
            if (c == 0) {
                c = Integer.compare(minor, other.minor);
            }
            return c != 0 ? c : Integer.compare(patch, other.patch);
        }

        boolean isBefore(Version other) {
            return compareTo(other) < 0;
        }

        @Override
        public String toString() {
            return major + "." + minor + "." + patch;
        }
    }

    /** What was found on the class path: each jar's version as written there, or {@code null} if unreadable. */
    record Found(String recipes, String framework, boolean hasLastPathIsLeader) {}

    /**
     * Refuses an unsupported Curator; warns once per JVM about an untested or unreadable one.
     *
     * @param who the recipe and participant, for the message, e.g. {@code FencedLeaderLatch 'p-1' on /app/leader}
     * @throws IllegalStateException if the Curator on the class path is older than {@link #MINIMUM}
     */
    static void requireSupported(String who) {
        Found found = new Found(
                versionOf(LeaderLatch.class, "curator-recipes"),
                versionOf(CuratorFramework.class, "curator-framework"),
                hasLastPathIsLeader());
        String refusal = whyUnsupported(found);
        if (refusal != null) {
            throw new IllegalStateException(who + " cannot start: " + refusal);
        }
        String warning = untested(found);
        if (warning != null && warned.compareAndSet(false, true)) {
            log.warn("{}", warning);
        }
    }

    /**
     * Why the Curator found cannot be supported, in one sentence that names the version found, the minimum and the
     * reason; {@code null} if it can.
     */
    static String whyUnsupported(Found found) {
        for (String[] jar :
                new String[][] {{"curator-recipes", found.recipes()}, {"curator-framework", found.framework()}}) {
            Version version = Version.parse(jar[1]);
            if (version != null && version.isBefore(MINIMUM)) {
                return "found " + jar[0] + " " + jar[1] + " but the minimum supported is Curator " + MINIMUM
                        + ", because " + reasonBelowMinimum(version) + "; " + PIN;
            }
        }
        if (!found.hasLastPathIsLeader()) {
            return "found curator-recipes " + orUnknown(found.recipes()) + " without LeaderLatch.getLastPathIsLeader()"
                    + " (added in Curator 5.3.0), which the recipes need to know which node Curator leads with; the"
                    + " minimum supported is Curator " + MINIMUM + "; " + PIN;
        }
        return null;
    }

    private static final String PIN = "pin org.apache.curator:curator-recipes and curator-framework to " + MINIMUM
            + " or newer (import the leasehold-bom, which pins them)";

    /** The WARN for a Curator the recipes run on untested, or {@code null} for a tested one. */
    static String untested(Found found) {
        Version recipes = Version.parse(found.recipes());
        Version framework = Version.parse(found.framework());
        if (recipes == null || framework == null) {
            return "could not read Curator's version (curator-recipes " + orUnknown(found.recipes())
                    + ", curator-framework " + orUnknown(found.framework()) + ": no Curator manifest or pom.properties"
                    + " on the class path, as in some shaded jars); running untested. The recipes are tested with"
                    + " Curator " + MINIMUM + " to " + NEWEST_TESTED + " and recover from the older ones' known"
                    + " defects by themselves; check `mvn dependency:tree -Dincludes=org.apache.curator`";
        }
        if (!recipes.equals(framework)) {
            return "curator-recipes " + found.recipes() + " and curator-framework " + found.framework()
                    + " differ: Curator is released and tested as one version; pin both (the leasehold-bom does)";
        }
        if (NEWEST_TESTED.isBefore(recipes)) {
            return "Curator " + found.recipes() + " is newer than " + NEWEST_TESTED + ", the newest the recipes were"
                    + " tested with; running untested";
        }
        return null;
    }

    private static String reasonBelowMinimum(Version version) {
        if (version.major() < 5) {
            return "Curator " + version.major() + ".x is built on a ZooKeeper client older than 3.6 and lacks the"
                    + " LeaderLatch API the recipes use (getLastPathIsLeader, 5.3.0)";
        }
        if (version.isBefore(new Version(5, 3, 0))) {
            return "it lacks LeaderLatch.getLastPathIsLeader() (added in 5.3.0), which the recipes need to know which"
                    + " node Curator leads with";
        }
        return "its LeaderLatch re-creates its node on every reconnect and two latches can then delete each other's"
                + " nodes in a loop (CURATOR-644/645, fixed in 5.4.0), a livelock the recipes cannot recover from;"
                + " it is not tested";
    }

    private static String orUnknown(String version) {
        return version == null ? "version unknown" : version;
    }

    /**
     * The version of the Curator jar holding {@code type}: its manifest's, if that manifest is Curator's, else its
     * Maven {@code pom.properties}; {@code null} if neither can be read.
     */
    static String versionOf(Class<?> type, String artifactId) {
        Package pkg = type.getPackage();
        if (pkg != null) {
            String title = pkg.getImplementationTitle();
            String version = pkg.getImplementationVersion();
            if (title != null && title.startsWith("Curator") && version != null && !version.isBlank()) {
                return version.trim();
            }
        }
        String resource = "/META-INF/maven/org.apache.curator/" + artifactId + "/pom.properties";
        try (InputStream in = type.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version");
            return version == null || version.isBlank() ? null : version.trim();
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean hasLastPathIsLeader() {
        try {
            LeaderLatch.class.getMethod("getLastPathIsLeader");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
