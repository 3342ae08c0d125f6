package io.queenkv.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/** Runs {@link Cli} in this JVM with a given environment and stdin, capturing stdout, stderr and the exit code. */
final class CliRunner {
    record Result(int exit, String out, String err) {
        /** stdout as one JSON document. */
        JsonNode json() {
            return Json.parse(out.getBytes(StandardCharsets.UTF_8), "stdout");
        }

        /** stdout's lines. */
        List<String> lines() {
            return out.lines().toList();
        }

        /** Asserts the exit code, and that an error is one line on stderr (never a stack trace). */
        Result exits(int code) {
            assertThat(exit).as("exit code; stdout:%n%s%nstderr:%n%s", out, err).isEqualTo(code);
            if (code == 0) assertThat(err).as("stderr").isEmpty();
            else assertThat(err.lines().toList()).as("stderr").hasSize(1).allMatch(l -> l.startsWith("queen-kv: "));
            assertThat(err).doesNotContain("\tat ", "Exception in");
            return this;
        }
    }

    private final Map<String, String> env;

    CliRunner(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    /** A runner calling {@code endpoints} (the environment's QUEEN_KV_ENDPOINTS). */
    static CliRunner against(String... endpoints) {
        return new CliRunner(Map.of("QUEEN_KV_ENDPOINTS", String.join(",", endpoints)));
    }

    CliRunner withEnv(String name, String value) {
        Map<String, String> more = new HashMap<>(env);
        more.put(name, value);
        return new CliRunner(more);
    }

    Result run(String... args) {
        return runWithStdin("", args);
    }

    Result runWithStdin(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = new Cli(env, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
