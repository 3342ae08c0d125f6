package io.queenkv.e2e.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The node jar of an earlier commit of this repository, for a rolling upgrade from it: the commit's
 * tree from {@code git archive}, built with Maven offline (this build's dependencies are in the local
 * repository by then), once, into {@code e2e/target/earlier-<commit>/}.
 */
public final class EarlierBuild {
    private EarlierBuild() {}

    /** The earlier jar; throws {@link Unavailable} (a test skips on it) when git, the commit or Maven is missing. */
    public static synchronized Path nodeJar(String commit) {
        Path dir = NodeProcessCluster.e2eModuleDir().resolve("target").resolve("earlier-" + commit).toAbsolutePath();
        Path jar = dir.resolve("node/target/queen-kv-node.jar");
        if (Files.isRegularFile(jar)) return jar;
        Path repo = NodeProcessCluster.e2eModuleDir().resolve("..").toAbsolutePath().normalize();
        try {
            Files.createDirectories(dir);
            run(repo, List.of("sh", "-c", "git archive --format=tar " + commit + " | tar -x -C '" + dir + "'"), 60);
            run(dir, List.of("mvn", "-B", "-q", "-o", "-ntp", "-pl", "node", "-DskipTests", "package"), 600);
        } catch (IOException e) {
            throw new Unavailable("could not build the node of commit " + commit + ": " + e.getMessage());
        }
        if (!Files.isRegularFile(jar)) throw new Unavailable("building commit " + commit + " left no " + jar);
        return jar;
    }

    /** The earlier build cannot be made here (no git history, no Maven). */
    public static final class Unavailable extends RuntimeException {
        Unavailable(String why) {
            super(why);
        }
    }

    private static void run(Path dir, List<String> command, long timeoutSeconds) throws IOException {
        Path log = Files.createTempFile("earlier-build", ".log");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " took over " + timeoutSeconds + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        if (p.exitValue() != 0)
            throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + Files.readString(log).lines().limit(20).toList());
    }
}
