package io.queenkv.cli;

import java.io.IOException;
import java.io.InputStream;

import io.queenkv.client.QueenKv;

/** What a command runs with: the output, stdin, and the connection (made on first use). */
final class Context {
    final Output out;
    private final InputStream stdin;
    private final Connection connection;

    Context(Output out, InputStream stdin, Connection connection) {
        this.out = out;
        this.stdin = stdin;
        this.connection = connection;
    }

    QueenKv kv() {
        return connection.kv();
    }

    AdminClient admin() {
        return connection.admin();
    }

    byte[] readStdin() {
        try {
            return stdin.readAllBytes();
        } catch (IOException e) {
            throw CliFailure.file("stdin cannot be read: " + e.getMessage(), e);
        }
    }
}
