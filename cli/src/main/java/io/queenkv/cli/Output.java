package io.queenkv.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;

/** Where results go: stdout, as a table for people or as the node's JSON (one document per line). */
final class Output {
    enum Format {
        TABLE, JSON;

        static Format parse(String text) {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "table" -> TABLE;
                case "json" -> JSON;
                default -> throw CliFailure.usage("-o takes table or json, not " + text);
            };
        }
    }

    final Format format;
    private final PrintStream out;

    Output(Format format, PrintStream out) {
        this.format = format;
        this.out = out;
    }

    /** Prints {@code json}, or the table built from the same answer. */
    void print(JsonNode json, Supplier<Table> table) {
        if (format == Format.JSON) out.println(Json.text(json));
        else table.get().print(out);
    }

    /** Prints {@code json} with {@code -o json}; a table shows nothing (e.g. for an absent key). */
    void printJson(JsonNode json) {
        if (format == Format.JSON) out.println(Json.text(json));
    }

    /** Prints {@code table} with {@code -o table}; JSON output prints nothing for it. */
    void table(Table table) {
        if (format == Format.TABLE) table.print(out);
    }

    /** Text for people only (table output); JSON output prints nothing else. */
    void note(String text) {
        if (format == Format.TABLE) out.println(text);
    }

    /** Plain text whatever the format (help, version). */
    void text(String text) {
        out.print(text);
    }
}
