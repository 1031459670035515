package dev.leasehold.scenarios.incidents.dbfailover;

import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.CommitOutcomeUnknownException;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreException;
import java.util.ArrayList;
import java.util.List;

/**
 * The old leader's write with its old token after the failover, and what refused it. Each attempt takes a fresh
 * connection to the primary of the moment (the cluster's multi-host URL), so what answers is the promoted standby. A
 * database error before the fence had a say (a connection to the killed primary, a member still starting, a commit
 * lost) is named in the timeline with its SQLState and the write is tried again, a few times, on a fresh connection:
 * the scenario must show which of the two refused the write, the database or the fence.
 *
 * @param accepted       the write committed (the stale write passed)
 * @param highest        the highest token the fence named when it refused ({@link StaleTokenException}); -1 if it never
 *                       refused
 * @param databaseErrors each database error met before that, as "SQLState: message"
 */
record LateWrite(boolean accepted, long highest, List<String> databaseErrors) {

    /** How many times the write is tried on a fresh connection after a database error. */
    static final int ATTEMPTS = 3;

    /** @return whether the fence refused it: a {@link StaleTokenException} from the promoted standby */
    boolean refusedByFence() {
        return !accepted && highest >= 0;
    }

    /**
     * Tries {@code write} until it commits, the fence refuses it, or {@link #ATTEMPTS} database errors were met.
     *
     * @param write    the write (a gate's write with the old token, a fresh connection each time)
     * @param token    the old token, for the timeline
     * @param promoted the name of the promoted standby
     * @param timeline where each outcome is drawn, in lane A
     * @return what happened
     */
    static LateWrite attempt(Runnable write, long token, String promoted, Timeline timeline) {
        List<String> errors = new ArrayList<>();
        while (true) {
            try {
                write.run();
                timeline.accepted(
                        "A", "write with token " + token + " ACCEPTED by the promoted primary", token, "stale!");
                return new LateWrite(true, -1, errors);
            } catch (StaleTokenException e) {
                timeline.rejected(
                        "A",
                        "write with token " + token + " refused by the fence on " + promoted
                                + ", the promoted standby: StaleTokenException (highest " + e.highestToken() + ")",
                        token);
                return new LateWrite(false, e.highestToken(), errors);
            } catch (StoreException e) {
                String error = identify(e);
                errors.add(error);
                boolean again = !(e instanceof CommitOutcomeUnknownException) && errors.size() < ATTEMPTS;
                timeline.problem(
                        "A",
                        "write with token " + token + " failed with a database error before the fence had a say: "
                                + error + (again ? "; tried again on a fresh connection" : "; not tried again"),
                        "database error");
                if (!again) {
                    return new LateWrite(false, -1, errors);
                }
            }
        }
    }

    /** "SQLState: the database's message", or the store's message where no SQLException is behind it. */
    static String identify(StoreException e) {
        return e.sqlException() == null
                ? e.getMessage()
                : e.sqlException().getSQLState() + ": " + e.sqlException().getMessage();
    }
}
