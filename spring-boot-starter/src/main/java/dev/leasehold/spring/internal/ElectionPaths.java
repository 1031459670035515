package dev.leasehold.spring.internal;

import org.springframework.integration.leader.Candidate;

/**
 * Checks of a candidate's role and id and of the election root, with messages that say what is allowed.
 *
 * <p>Thread-safety: stateless.
 *
 * <p>Not API: public only so that the starter's other packages can share it.
 */
public final class ElectionPaths {

    private ElectionPaths() {}

    /**
     * Checks a candidate's role: one ZooKeeper node name.
     *
     * @param role      the role
     * @param candidate the candidate, named in the message
     * @return the role
     * @throws IllegalArgumentException if it is blank or not one node name
     */
    public static String requireRole(String role, Candidate candidate) {
        if (role == null || role.isBlank()) {
            throw new IllegalArgumentException("the Candidate " + candidate + " has a blank role: every Candidate"
                    + " needs a role, which names its election (leasehold.election.root + '/' + role)");
        }
        if (!role.equals(role.strip()) || role.contains("/") || role.equals(".") || role.equals("..")) {
            throw new IllegalArgumentException("the Candidate " + candidate + " has the role '" + role + "': a role"
                    + " must be one ZooKeeper node name (no '/', no surrounding spaces, not '.' or '..')");
        }
        return role;
    }

    /**
     * Checks a candidate's participant id.
     *
     * @param id        the id
     * @param candidate the candidate, named in the message
     * @return the id
     * @throws IllegalArgumentException if it is blank
     */
    public static String requireId(String id, Candidate candidate) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("the Candidate " + candidate + " has a blank id: the id is the"
                    + " participant id in the election and must be unique among participants");
        }
        return id;
    }

    /**
     * Checks the election root: an absolute ZooKeeper path.
     *
     * @param root the root
     * @return the root
     * @throws IllegalArgumentException if it is not an absolute path without a trailing '/'
     */
    public static String requireRoot(String root) {
        if (root == null || !root.startsWith("/") || (root.length() > 1 && root.endsWith("/")) || root.contains("//")) {
            throw new IllegalArgumentException("the election root must be an absolute ZooKeeper path such as"
                    + " /leasehold/election (starting with '/', no trailing '/'), was "
                    + (root == null ? "null" : "'" + root + "'"));
        }
        return root;
    }

    /**
     * The election path of a role.
     *
     * @param root the election root
     * @param role the role
     * @return {@code root + "/" + role}, with one '/' under the root {@code /}
     */
    public static String join(String root, String role) {
        return root.equals("/") ? "/" + role : root + "/" + role;
    }
}
