package dev.leasehold.scenarios;

import dev.leasehold.recipes.FencedPartitionListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.slots.SlotRuns;
import dev.leasehold.testkit.HistoryChecker;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;

/**
 * What the Java snippets of README.md and docs/ take as given: the names they use without declaring them (a client,
 * a token, a data source...) and the stand-ins for the reader's own code ({@code startBillingRun},
 * {@code push}...). {@link DocsTest} compiles each snippet as a method of a subclass of this class; nothing runs.
 */
@SuppressWarnings("unused") // every member is there for some snippet
public abstract class DocsSnippetContext {

    /** A started Curator client. */
    protected CuratorFramework client;

    /** The token of the current grant. */
    protected FencingToken token;

    /** The application's data source, under two names. */
    protected DataSource ds;

    protected DataSource dataSource;

    protected FenceGate gate;

    protected SlotRuns slots;

    protected MeterRegistry registry;

    protected ScheduledExecutorService scheduler;

    /** The application's listener of a partition group. */
    protected FencedPartitionListener partitionListener;

    /** A customer, the body of a payment request, this host's name. */
    protected String customer;

    protected String body;

    protected String host;

    /** A payment provider's client, which honours an idempotency key. */
    protected Payments payments;

    /** What a participant of the test kit's example knows: its token, the write's sequence number, its session. */
    protected long t;

    protected long seq;

    protected long session;

    protected long from;

    protected long to;

    protected List<HistoryChecker.Grant> grants;

    protected List<HistoryChecker.Ack> acks;

    protected List<HistoryChecker.Belief> beliefs;

    /** A payment provider's client. */
    public interface Payments {
        /** Charges with {@code idempotencyKey}; a repeated key is answered from the provider's record. */
        void charge(String payload, String idempotencyKey) throws IOException;
    }

    protected void startBillingRun(long token) {}

    protected void stopBillingRunNow() {}

    protected void chargeNextCustomer(long token) {}

    protected void push(String payload, String idempotencyKey) throws IOException {}

    protected void markInvoiced(Connection tx, String customer) throws SQLException {}

    protected void yourWrite(Connection tx) throws SQLException {}
}
