package dev.leasehold.spring;

import org.springframework.integration.leader.Candidate;

/**
 * Checks of a candidate's role and id and of the election root, with messages that say what is allowed.
 *
 * <p>Thread-safety: stateless.
 */
final class ElectionPaths {

    private ElectionPaths() {}

    static String requireRole(String role, Candidate candidate) {
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

    static String requireId(String id, Candidate candidate) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("the Candidate " + candidate + " has a blank id: the id is the"
                    + " participant id in the election and must be unique among participants");
        }
        return id;
    }

    static String requireRoot(String root) {
        if (root == null || !root.startsWith("/") || (root.length() > 1 && root.endsWith("/")) || root.contains("//")) {
            throw new IllegalArgumentException("the election root must be an absolute ZooKeeper path such as"
                    + " /leasehold/election (starting with '/', no trailing '/'), was "
                    + (root == null ? "null" : "'" + root + "'"));
        }
        return root;
    }

    static String join(String root, String role) {
        return root.equals("/") ? "/" + role : root + "/" + role;
    }
}
