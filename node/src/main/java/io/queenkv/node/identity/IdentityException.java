package io.queenkv.node.identity;

/** The data dir does not belong to this node (another cluster, another member) or cannot be read. */
public final class IdentityException extends RuntimeException {
    public IdentityException(String message) {
        super(message);
    }
}
