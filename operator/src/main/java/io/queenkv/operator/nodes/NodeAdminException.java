package io.queenkv.operator.nodes;

/** A node could not be reached, or refused an admin call ({@code status} is 0 when nothing answered). */
public class NodeAdminException extends RuntimeException {
    private final int status;

    public NodeAdminException(String message, int status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    public NodeAdminException(String message, int status) {
        this(message, status, null);
    }

    public int status() { return status; }
}
