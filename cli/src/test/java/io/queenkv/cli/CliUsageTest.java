package io.queenkv.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the CLI answers without a node: help, version, usage errors, files, and no node to reach. */
class CliUsageTest {
    private final CliRunner cli = new CliRunner(Map.of());

    @TempDir
    Path dir;

    @Test
    void helpListsEveryCommandAndEveryExitCode() {
        CliRunner.Result help = cli.run("--help").exits(0);
        for (Commands.Spec spec : Commands.ALL) assertThat(help.out()).contains("\n  " + spec.name());
        for (Exit exit : Exit.values()) assertThat(help.out()).contains(Cli.wrapped(String.format("  %-3d ", exit.code), exit.meaning));
        assertThat(help.lines()).allMatch(line -> line.length() <= 100 && line.equals(line.stripTrailing()));
        assertThat(help.out()).contains("QUEEN_KV_ENDPOINTS", "QUEEN_KV_TOKEN", "QUEEN_KV_CA_FILE");
    }

    @Test
    void theReadmeListsTheExitCodes() throws IOException {
        String readme = Files.readString(Path.of("../README.md"));
        String section = readme.substring(readme.indexOf("## Command-line client"), readme.indexOf("## A cluster"));
        List<Integer> listed = section.lines().filter(l -> l.matches("\\| \\d+ \\|.*"))
                .map(l -> Integer.parseInt(l.split("\\|")[1].trim())).toList();
        assertThat(listed).containsExactlyElementsOf(Arrays.stream(Exit.values()).map(e -> e.code).toList());
    }

    @Test
    void eachCommandHasItsOwnHelp() {
        assertThat(cli.run("put", "--help").exits(0).out())
                .startsWith("usage: queen-kv put <ns> <key> <json|-> (--ttl DURATION | --forever)").contains("--expect-absent");
        assertThat(cli.run("member", "--help").exits(0).out()).contains("usage: queen-kv member add", "usage: queen-kv member remove");
        assertThat(cli.run("restore", "-h").exits(0).out()).contains("QUEEN_KV_RESTORE_FROM", "every initial member");
    }

    @Test
    void versionNamesTheBuild() {
        assertThat(cli.run("--version").exits(0).out()).matches("queen-kv \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(Java .+\\)\\n");
    }

    @Test
    void usageErrorsExit2WithOneLine() {
        String[][] lines = {
                {},
                {"frobnicate"},
                {"member"},
                {"member", "promote", "n1"},
                {"get", "orders"},
                {"get", "orders", "9137", "extra"},
                {"get", "orders", "9137", "--frob"},
                {"put", "orders", "9137", "1"},
                {"put", "orders", "9137", "1", "--ttl", "30d", "--forever"},
                {"put", "orders", "9137", "1", "--ttl", "30 days"},
                {"put", "orders", "9137", "paid", "--forever"},
                {"put", "orders", "9137", "1", "--forever", "--expect", "-1"},
                {"put", "orders", "9137", "1", "--forever", "--expect", "1", "--expect-absent"},
                {"put", "orders", "9137", "-5", "--forever"},
                {"put", "orders", "9137", "1", "--forever", "--ttl"},
                {"incr", "limits", "k", "--by", "one", "--forever"},
                {"list", "orders", "91", "--limit", "0"},
                {"list", "orders", ""},
                {"settings", "set"},
                {"settings", "set", "maxValueBytes"},
                {"settings", "set", "maxValueBytes=big"},
                {"batch", "--idempotency-key", ""},
                {"-o", "yaml", "get", "orders", "9137"},
                {"--endpoints", "ftp://kv:21", "get", "orders", "9137"},
                {"--endpoints", ",", "get", "orders", "9137"},
        };
        for (String[] line : lines) {
            CliRunner.Result r = cli.run(line);
            assertThat(r.exit()).as("queen-kv %s: %s", String.join(" ", line), r.err()).isEqualTo(2);
            r.exits(2);
            assertThat(r.out()).isEmpty();
        }
        assertThat(cli.run("put", "orders", "9137", "paid", "--forever").err()).contains("'\"paid\"'");
        assertThat(cli.run("member").err()).contains("member needs one of: add, remove");
    }

    @Test
    void aValueStartingWithDashGoesAfterDoubleDash() {
        // Parsed, then no node answers: the command line itself was fine.
        CliRunner.Result r = new CliRunner(Map.of("QUEEN_KV_ENDPOINTS", closedEndpoint()))
                .run("put", "n", "k", "--forever", "--", "-5");
        r.exits(4);
    }

    @Test
    void noNodeToReachExits4() {
        CliRunner nowhere = new CliRunner(Map.of("QUEEN_KV_ENDPOINTS", closedEndpoint()));
        assertThat(nowhere.run("get", "orders", "9137").exits(4).err()).startsWith("queen-kv: unavailable (connection_failed)");
        assertThat(nowhere.run("cluster", "status").exits(4).err()).startsWith("queen-kv: unavailable (connection_failed)");
        assertThat(nowhere.run("backup", dir.resolve("kv.backup").toString()).exits(4).err()).contains("unavailable");
        assertThat(dir.resolve("kv.backup")).doesNotExist();
        try (var left = Files.list(dir)) {
            assertThat(left).as("no partial file left").isEmpty();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void restoreChecksTheFileWithoutConnecting() throws IOException {
        // Bad endpoints do not matter to a command that does not connect.
        CliRunner offline = new CliRunner(Map.of("QUEEN_KV_ENDPOINTS", "not a url"));
        assertThat(offline.run("restore", dir.resolve("missing.backup").toString()).exits(6).err()).contains("no such file");
        Path junk = Files.writeString(dir.resolve("junk.backup"), "hello, this is not a backup");
        assertThat(offline.run("restore", junk.toString()).exits(6).err()).contains("not a Queen KV backup");
    }

    @Test
    void badBatchFilesExit2AndMissingOnesExit6() throws IOException {
        CliRunner nowhere = new CliRunner(Map.of("QUEEN_KV_ENDPOINTS", closedEndpoint()));
        String[] bodies = {
                "",
                "{\"ops\":[]}",
                "42",
                "[1]",
                "[{\"op\":\"put\",\"ns\":\"n\",\"key\":\"k\",\"value\":1}]",
                "[{\"op\":\"put\",\"ns\":\"n\",\"key\":\"k\",\"value\":1,\"forever\":true,\"ttlSeconds\":5}]",
                "[{\"op\":\"put\",\"ns\":\"n\",\"key\":\"k\",\"forever\":true}]",
                "[{\"op\":\"put\",\"ns\":\"n\",\"key\":\"k\",\"value\":1,\"forever\":true,\"ttl\":5}]",
                "[{\"op\":\"incr\",\"ns\":\"n\",\"key\":\"k\",\"delta\":\"1\",\"forever\":true}]",
                "[{\"op\":\"frob\",\"ns\":\"n\",\"key\":\"k\"}]",
                "[{\"op\":\"get\",\"ns\":\"n\"}]",
                "[{\"op\":\"getPrefix\",\"ns\":\"n\",\"prefix\":\"\"}]",
                "[{\"op\":\"getPrefix\",\"ns\":\"n\",\"prefix\":\"p\",\"required\":true}]",
                "[{\"op\":\"check\",\"ns\":\"n\",\"key\":\"k\"}]",
                "[{\"op\":\"get\",\"ns\":\"n\",\"key\":\"k\"}] trailing",
        };
        for (String body : bodies) {
            CliRunner.Result r = nowhere.runWithStdin(body, "batch");
            assertThat(r.exit()).as("batch %s: %s", body, r.err()).isEqualTo(2);
            r.exits(2);
        }
        assertThat(nowhere.runWithStdin("[{\"op\":\"put\",\"ns\":\"n\",\"key\":\"k\",\"value\":1}]", "batch").err())
                .contains("op at index 0", "ttlSeconds or forever:true");
        assertThat(nowhere.run("batch", dir.resolve("none.json").toString()).exits(6).err()).contains("no such file");
    }

    static String closedEndpoint() {
        try (ServerSocket s = new ServerSocket(0)) {
            return "http://127.0.0.1:" + s.getLocalPort();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
