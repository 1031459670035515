package dev.leasehold.shedlock;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The holder id the JDBC provider stores with its locks, for people reading the lease table: {@code pid@host}, as
 * ShedLock's {@code lockedBy} is the host name. Never used for a decision: a grant is told apart by its generation and
 * its hold id.
 */
final class Holders {

    private Holders() {}

    static String thisProcess() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException | SecurityException e) {
            host = "unknown-host";
        }
        String id = ProcessHandle.current().pid() + "@"
                + host.replaceAll("\\p{Cntrl}", "").strip();
        return id.length() > 150 ? id.substring(0, 150) : id;
    }
}
