package dev.leasehold.scenarios.cli;

/** The environment could not be set up (an unreachable ZooKeeper or database): exit code 2. */
public final class EnvException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public EnvException(String message, Throwable cause) {
        super(message, cause);
    }
}
