package dev.leasehold.spring.actuate;

import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import dev.leasehold.store.lease.LeaseHolder;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * What the health indicator and the info contributor show on the database lease backend
 * ({@code leasehold.election.backend=jdbc}): per role this instance's participant id, whether it leads, and who holds
 * the lease as its row says now (holder, token, {@code lease_until} by the database's clock). One query per role;
 * without roles, one connection check.
 *
 * <p>Thread-safety: immutable once read.
 *
 * @param answered whether the database answered every read
 * @param roles    per role, what was read
 * @param error    what the database said when it did not answer, or {@code null}
 */
record LeaseStatus(boolean answered, Map<String, Object> roles, String error) {

    /** How long the connection check waits for the database when there is no role to read. */
    private static final int VALID_SECONDS = 2;

    static LeaseStatus read(List<LeaseLeaderInitiator> initiators, DataSource dataSource) {
        Map<String, Object> roles = new LinkedHashMap<>();
        String error = null;
        for (LeaseLeaderInitiator initiator : initiators) {
            Map<String, Object> role = new LinkedHashMap<>();
            role.put("participantId", initiator.holder());
            role.put("running", initiator.isRunning());
            OptionalLong own = initiator.currentToken();
            role.put("leading", own.isPresent());
            try {
                Optional<LeaseHolder> holder = initiator.currentLeader();
                if (holder.isPresent()) {
                    LeaseHolder h = holder.get();
                    role.put("holder", h.holder());
                    role.put("token", h.token());
                    role.put("lease_until", h.leaseUntil().toString());
                    role.put("leader", Map.of("participantId", h.holder(), "token", h.token()));
                } else {
                    role.put("holder", "none");
                    role.put("leader", "none");
                }
            } catch (RuntimeException e) {
                error = e.getMessage();
                role.put("holder", "unknown: the database did not answer");
                role.put("leader", "unknown: the database did not answer");
            }
            own.ifPresent(token -> role.put("token", token)); // this instance's, when it leads
            roles.put(initiator.role(), role);
        }
        if (initiators.isEmpty() && dataSource != null) {
            error = check(dataSource);
        }
        return new LeaseStatus(error == null, roles, error);
    }

    private static String check(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return connection.isValid(VALID_SECONDS) ? null : "the connection is not valid";
        } catch (SQLException e) {
            return e.getMessage() + " (SQLState " + e.getSQLState() + ")";
        }
    }

    /** The details shared by health and info: the backend, the roles, and the error if any. */
    Map<String, Object> details() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("backend", "jdbc");
        details.put("database", answered ? "answering" : "not answering");
        if (error != null) {
            details.put("error", error);
        }
        details.put("roles", roles);
        return details;
    }
}
