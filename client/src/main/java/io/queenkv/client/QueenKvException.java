package io.queenkv.client;

/** The base of every exception the SDK throws for a call. */
public class QueenKvException extends RuntimeException {
    public QueenKvException(String message) {
        super(message);
    }

    public QueenKvException(String message, Throwable cause) {
        super(message, cause);
    }
}
