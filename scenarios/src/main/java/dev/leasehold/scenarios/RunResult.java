package dev.leasehold.scenarios;

import dev.leasehold.scenarios.report.Timeline;
import java.util.List;

/**
 * One run of a scenario: "as it happened" (the broken design, expected to reproduce its incident) or "with
 * Leasehold" (expected to hold its invariant).
 *
 * @param scenario    the scenario's name
 * @param title       e.g. {@code as it happened} or {@code with Leasehold}
 * @param broken      true for a run of the broken design
 * @param verdicts    the verdict lines, e.g. {@code batches processed twice: batch-0}
 * @param asExpected  the broken run reproduced the incident, or the Leasehold run held its invariant
 * @param expectation what was expected, said when it did not hold
 */
public record RunResult(
        String scenario,
        String title,
        boolean broken,
        Timeline timeline,
        List<String> verdicts,
        boolean asExpected,
        String expectation) {}
