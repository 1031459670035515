package dev.leasehold.scenarios.ops;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.MarkChange;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.claims.BatchStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * The fenced store as one inspection reads it: the fence marks (or one resource's mark and its history), the batch
 * queue's counts, and the slot runs in progress (expired ones marked). Reads only. Immutable and thread-safe.
 */
record StoreSnapshot(
        List<Mark> marks,
        Optional<String> resource,
        List<MarkChange> history,
        BatchStats batches,
        List<Running> slots) {

    /** A resource's mark. */
    record Mark(String resource, long token, Instant updatedAt) {}

    /** A slot run still running; expired if its lease ended (database clock). */
    record Running(String job, Instant slot, String runner, long fence, Instant leaseUntil, boolean expired) {}

    /** How many slot runs and history rows an inspection shows at most. */
    static final int SHOWN = 50;

    static StoreSnapshot read(DataSource ds, StoreConfig config, String resource) throws SQLException {
        String prefix = config.tablePrefix();
        List<Mark> marks = new ArrayList<>();
        List<MarkChange> history = List.of();
        try (Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            try (PreparedStatement s = c.prepareStatement("SELECT resource, token, updated_at FROM " + prefix + "fence"
                    + (resource == null ? "" : " WHERE resource = ?") + " ORDER BY resource")) {
                if (resource != null) {
                    s.setString(1, resource);
                }
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        marks.add(new Mark(rs.getString(1), rs.getLong(2), instant(rs, 3)));
                    }
                }
            }
            List<Running> slots = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("SELECT job, slot, runner, fence, lease_until,"
                            + " CASE WHEN lease_until < CURRENT_TIMESTAMP THEN 1 ELSE 0 END FROM " + prefix
                            + "slot_runs"
                            + " WHERE status = 'running' ORDER BY job, slot FETCH FIRST " + SHOWN + " ROWS ONLY");
                    ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    slots.add(new Running(
                            rs.getString(1),
                            instant(rs, 2),
                            rs.getString(3),
                            rs.getLong(4),
                            instant(rs, 5),
                            rs.getInt(6) == 1));
                }
            }
            if (resource != null) {
                history = new FenceGate(ds, config).history(resource, SHOWN);
            }
            return new StoreSnapshot(
                    marks, Optional.ofNullable(resource), history, new BatchClaims(ds, config).stats(), slots);
        }
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    String text() {
        StringBuilder out = new StringBuilder();
        if (resource.isPresent()) {
            out.append("fence ")
                    .append(Printable.escape(resource.get()))
                    .append(": ")
                    .append(
                            marks.isEmpty()
                                    ? "no mark"
                                    : "mark " + marks.get(0).token() + ", "
                                            + setAt(marks.get(0).token()) + ", last write "
                                            + marks.get(0).updatedAt())
                    .append('\n');
            out.append("history (newest first):\n");
            if (history.isEmpty()) {
                out.append("  none\n");
            }
            for (MarkChange change : history) {
                out.append(String.format(
                                        "  %s  %-8s %-12d after %-12s %s",
                                        change.at(),
                                        change.kind().name().toLowerCase(java.util.Locale.ROOT),
                                        change.token(),
                                        previous(change.previousToken()),
                                        change.holder()
                                                        .map(h -> "by " + Printable.escape(h))
                                                        .orElse("")
                                                + change.reason()
                                                        .map(r -> ": " + Printable.escape(r))
                                                        .orElse(""))
                                .stripTrailing())
                        .append('\n');
            }
        } else {
            out.append("fence marks: ").append(marks.size()).append('\n');
            for (Mark mark : marks) {
                out.append(String.format(
                        "  %-30s %-14d last write %s%n",
                        Printable.escape(mark.resource()), mark.token(), mark.updatedAt()));
            }
        }
        out.append(String.format(
                "batches: pending %d, processing %d, expired %d, done %d, failed %d;" + " oldest pending %s%n",
                batches.pending(),
                batches.processing(),
                batches.expired(),
                batches.done(),
                batches.failed(),
                batches.oldestPendingAge()
                        .map(age -> age.toMillis() / 1000 + " s")
                        .orElse("none")));
        long expired = slots.stream().filter(Running::expired).count();
        out.append("slot runs in progress: ")
                .append(slots.size() - expired)
                .append(", expired: ")
                .append(expired)
                .append(slots.size() == SHOWN ? " (the first " + SHOWN + ")" : "")
                .append('\n');
        for (Running run : slots) {
            out.append(String.format(
                    "  %-20s %s  %-16s fence %d  lease until %s%s%n",
                    Printable.escape(run.job()),
                    run.slot(),
                    Printable.escape(run.runner()),
                    run.fence(),
                    run.leaseUntil(),
                    run.expired() ? "  EXPIRED" : ""));
        }
        return out.toString();
    }

    private static String previous(OptionalLong token) {
        return token.isPresent() ? Long.toString(token.getAsLong()) : "none";
    }

    /** When the current mark was set, from the history (its newest change to this mark), not the last write. */
    private String setAt(long mark) {
        return history.stream()
                .filter(change -> change.token() == mark)
                .findFirst()
                .map(change -> change.kind().name().toLowerCase(java.util.Locale.ROOT) + " " + change.at())
                .orElse("set before the history shown");
    }

    String json() {
        StringBuilder out = new StringBuilder("{");
        if (resource.isPresent()) {
            out.append("\"resource\":")
                    .append(Json.str(resource.get()))
                    .append(",\"mark\":")
                    .append(
                            marks.isEmpty()
                                    ? "null"
                                    : Long.toString(marks.get(0).token()))
                    .append(",\"history\":[");
            for (int i = 0; i < history.size(); i++) {
                MarkChange c = history.get(i);
                out.append(i == 0 ? "" : ",")
                        .append("{\"at\":")
                        .append(Json.str(c.at().toString()))
                        .append(",\"kind\":")
                        .append(Json.str(c.kind().name().toLowerCase(java.util.Locale.ROOT)))
                        .append(",\"token\":")
                        .append(c.token())
                        .append(",\"previous\":")
                        .append(
                                c.previousToken().isPresent()
                                        ? Long.toString(c.previousToken().getAsLong())
                                        : "null")
                        .append(",\"holder\":")
                        .append(Json.str(c.holder().orElse(null)))
                        .append(",\"reason\":")
                        .append(Json.str(c.reason().orElse(null)))
                        .append('}');
            }
            out.append("]");
        } else {
            out.append("\"marks\":[");
            for (int i = 0; i < marks.size(); i++) {
                Mark m = marks.get(i);
                out.append(i == 0 ? "" : ",")
                        .append("{\"resource\":")
                        .append(Json.str(m.resource()))
                        .append(",\"token\":")
                        .append(m.token())
                        .append(",\"updated_at\":")
                        .append(Json.str(m.updatedAt().toString()))
                        .append('}');
            }
            out.append("]");
        }
        out.append(",\"batches\":{\"pending\":")
                .append(batches.pending())
                .append(",\"processing\":")
                .append(batches.processing())
                .append(",\"expired\":")
                .append(batches.expired())
                .append(",\"done\":")
                .append(batches.done())
                .append(",\"failed\":")
                .append(batches.failed())
                .append(",\"oldest_pending_seconds\":")
                .append(batches.oldestPendingAge()
                        .map(age -> Double.toString(age.toMillis() / 1000.0))
                        .orElse("null"))
                .append("}");
        out.append(",\"slots\":[");
        for (int i = 0; i < slots.size(); i++) {
            Running r = slots.get(i);
            out.append(i == 0 ? "" : ",")
                    .append("{\"job\":")
                    .append(Json.str(r.job()))
                    .append(",\"slot\":")
                    .append(Json.str(r.slot().toString()))
                    .append(",\"runner\":")
                    .append(Json.str(r.runner()))
                    .append(",\"fence\":")
                    .append(r.fence())
                    .append(",\"lease_until\":")
                    .append(Json.str(r.leaseUntil().toString()))
                    .append(",\"expired\":")
                    .append(r.expired())
                    .append('}');
        }
        return out.append("]}").toString();
    }
}
