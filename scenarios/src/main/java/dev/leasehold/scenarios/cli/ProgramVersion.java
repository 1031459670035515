package dev.leasehold.scenarios.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The program's version for {@code -V}, as Maven built it (a resource filtered from the pom), never hard-coded. */
public final class ProgramVersion implements IVersionProvider {

    static final String RESOURCE = "/leasehold-scenarios-version.properties";

    /** Creates the provider, for picocli. */
    public ProgramVersion() {}

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}; "unknown" when the resource is missing (a build outside Maven). */
    static String version() {
        try (InputStream in = ProgramVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    @Override
    public String[] getVersion() {
        return new String[] {"leasehold-scenarios " + version()};
    }
}
