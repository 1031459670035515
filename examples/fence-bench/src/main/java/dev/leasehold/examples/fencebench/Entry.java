package dev.leasehold.examples.fencebench;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;

/**
 * One row a bench transaction saves through JPA: which thread wrote it, with which token. Its id comes from a pooled
 * sequence (50 ids a fetch), so Hibernate sends the insert at the flush, when the transaction commits, as a service's
 * entity does (an identity column would send it at {@code save}).
 */
@Entity
@Table(name = "fb_jpa_entry")
public class Entry {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "fb_jpa_entry_ids")
    @SequenceGenerator(name = "fb_jpa_entry_ids", sequenceName = "fb_jpa_entry_seq", allocationSize = 50)
    private Long id;

    private int thread;

    private long token;

    /** For JPA. */
    protected Entry() {}

    /**
     * A new row.
     *
     * @param thread the bench thread that writes it
     * @param token  the leader's token, as data (the fenced side is checked with the same token)
     */
    public Entry(int thread, long token) {
        this.thread = thread;
        this.token = token;
    }

    /**
     * The id, once saved.
     *
     * @return the id, or null before the save
     */
    public Long getId() {
        return id;
    }

    /**
     * The bench thread that wrote the row.
     *
     * @return the thread's number
     */
    public int getThread() {
        return thread;
    }

    /**
     * The token the row was written with.
     *
     * @return the token
     */
    public long getToken() {
        return token;
    }
}
