package dev.leasehold.examples.billing;

import dev.leasehold.testkit.ChildJvm;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One billing instance in a child JVM: {@link BillingApplication} with the given arguments, the database password
 * passed as a {@link ChildJvm#secretArgument} (never on the command line, which {@code ps} shows everyone).
 */
final class BillingChild {

    private BillingChild() {}

    public static void main(String[] args) throws IOException {
        List<String> spring = new ArrayList<>();
        for (String arg : args) {
            spring.add(
                    arg.startsWith(ChildJvm.SECRET_FILE)
                            ? "--spring.datasource.password=" + ChildJvm.readSecretArgument(arg)
                            : arg);
        }
        BillingApplication.main(spring.toArray(String[]::new));
    }
}
