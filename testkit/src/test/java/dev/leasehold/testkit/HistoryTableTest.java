package dev.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Issue 42: the history table's public prefix is validated as the store validates its own, before any SQL. */
class HistoryTableTest {
    private final DataSource h2 = new SimpleDataSource("jdbc:h2:mem:history_table;DB_CLOSE_DELAY=-1", null, null);

    @Test
    void aPrefixThatIsNotAPlainNameIsRefusedBeforeAnySqlIsSent() throws Exception {
        HistoryTable.create(h2, "victim_");
        for (String prefix : new String[] {
            "x (id INT); DROP TABLE victim_history; CREATE TABLE y", "Upper_", "1st_", "", "a-b", "a\nb"
        }) {
            assertThatThrownBy(() -> HistoryTable.create(h2, prefix))
                    .as(prefix)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("prefix must match")
                    .hasMessageNotContaining("\n");
            assertThatThrownBy(() -> HistoryTable.read(h2, prefix)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> HistoryTable.name(null)).isInstanceOf(IllegalArgumentException.class);
        try (Connection c = h2.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES" + " WHERE TABLE_SCHEMA = 'PUBLIC'")) {
            rs.next();
            assertThat(rs.getInt(1))
                    .as("only the victim's table: nothing dropped, nothing created")
                    .isEqualTo(1);
        }
        assertThat(HistoryTable.read(h2, "victim_")).isEmpty();
    }
}
