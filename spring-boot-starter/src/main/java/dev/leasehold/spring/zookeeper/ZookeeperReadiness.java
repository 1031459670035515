package dev.leasehold.spring.zookeeper;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.ApplicationListener;

/**
 * The application's readiness follows the Curator client's connection: while the client is not connected (never yet,
 * SUSPENDED or LOST) readiness is {@link ReadinessState#REFUSING_TRAFFIC}; once it connects again,
 * {@link ReadinessState#ACCEPTING_TRAFFIC}. Spring Boot's own ACCEPTING_TRAFFIC at the end of the start is answered
 * with REFUSING_TRAFFIC if the client is not connected then.
 *
 * <p>Each change of the connection is logged once (one WARN on losing it, naming the address, one INFO when it is
 * back), so the log stays readable while ZooKeeper is away; ZooKeeper's own per-attempt warnings are turned down by
 * the starter's default {@code logging.level.org.apache.zookeeper.ClientCnxn=ERROR}.
 *
 * <p>Thread-safety: thread-safe; connection changes arrive on Curator's thread, events on the publisher's.
 */
public final class ZookeeperReadiness
        implements SmartInitializingSingleton,
                DisposableBean,
                ApplicationEventPublisherAware,
                ApplicationListener<AvailabilityChangeEvent<?>> {

    private static final Logger log = LoggerFactory.getLogger(ZookeeperReadiness.class);

    private final ObjectProvider<CuratorFramework> clients;
    private final ObjectProvider<ApplicationAvailability> availability;
    private final ConnectionStateListener listener = (c, state) -> changed(state);
    private volatile CuratorFramework client;
    private volatile ApplicationEventPublisher publisher;
    /** Spring Boot said the application is ready: from then on the connection decides readiness. */
    private volatile boolean started;

    /**
     * @param clients      the Curator client, if the application has exactly one
     * @param availability Spring Boot's record of the application's availability, if there is one
     */
    public ZookeeperReadiness(
            ObjectProvider<CuratorFramework> clients, ObjectProvider<ApplicationAvailability> availability) {
        this.clients = clients;
        this.availability = availability;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        this.publisher = applicationEventPublisher;
    }

    /** Starts following the client's connection, once every singleton exists. */
    @Override
    public void afterSingletonsInstantiated() {
        CuratorFramework found = clients.getIfUnique();
        if (found != null) {
            client = found;
            found.getConnectionStateListenable().addListener(listener);
        }
    }

    /**
     * Whether the client is connected now.
     *
     * @return {@code true} if there is no client (nothing to follow) or it is connected
     */
    public boolean connected() {
        CuratorFramework current = client;
        return current == null || current.getZookeeperClient().isConnected();
    }

    /** Spring Boot's ACCEPTING_TRAFFIC while the client is not connected is answered with REFUSING_TRAFFIC. */
    @Override
    public void onApplicationEvent(AvailabilityChangeEvent<?> event) {
        if (event.getState() == ReadinessState.ACCEPTING_TRAFFIC && event.getSource() != this) {
            started = true;
            if (!connected()) {
                refuseOnceAccepted();
            }
        }
    }

    private void changed(ConnectionState state) {
        CuratorFramework current = client;
        String address = current == null ? "?" : current.getZookeeperClient().getCurrentConnectionString();
        // The client's connection now, not the event's state: Curator may deliver a stale LOST after it connected.
        if (state.isConnected() || connected()) {
            log.info("ZooKeeper at {} connected ({})", address, state);
            if (started) {
                publish(ReadinessState.ACCEPTING_TRAFFIC);
            }
        } else {
            log.warn("ZooKeeper at {} not connected ({}): readiness refuses traffic until it is back", address, state);
            if (started) {
                publish(ReadinessState.REFUSING_TRAFFIC);
            }
        }
    }

    /**
     * Answers Spring Boot's ACCEPTING_TRAFFIC with REFUSING_TRAFFIC, after the availability bean recorded it: this
     * listener may be told before that bean, and an answer published from here would then be overwritten.
     */
    private void refuseOnceAccepted() {
        ApplicationAvailability recorded = availability.getIfAvailable();
        if (recorded == null || recorded.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC) {
            publish(ReadinessState.REFUSING_TRAFFIC);
            return;
        }
        Thread answer = new Thread(
                () -> {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (recorded.getReadinessState() != ReadinessState.ACCEPTING_TRAFFIC
                            && System.nanoTime() < deadline) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // the outer event's delivery
                    }
                    if (!connected()) {
                        publish(ReadinessState.REFUSING_TRAFFIC);
                    }
                },
                "leasehold-readiness");
        answer.setDaemon(true);
        answer.start();
    }

    private void publish(ReadinessState state) {
        ApplicationEventPublisher current = publisher;
        if (current != null) {
            AvailabilityChangeEvent.publish(current, this, state);
        }
    }

    /** Stops following the connection. */
    @Override
    public void destroy() {
        CuratorFramework current = client;
        if (current != null) {
            current.getConnectionStateListenable().removeListener(listener);
        }
    }
}
