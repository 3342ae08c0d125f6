package io.queenkv.bench.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JDK's ahead-of-time cache of the node jar, as the node image ships it (docker/node.Dockerfile):
 * recorded by {@code java -XX:AOTCacheOutput=... -jar queen-kv-node.jar --train}. The cache is made
 * from the run's own copy of the jar, because the JVM does not check that a cache belongs to the jar
 * it is given.
 */
public final class AotCache {
    /** The first JDK whose {@code -XX:AOTCacheOutput} records a cache in one run (JEP 514). */
    public static final int FIRST_JDK = 25;

    private AotCache() {}

    /** Trains a cache of {@code jar} with {@code java} for {@code training}; answers the cache file. */
    public static Path train(Path java, Path jar, Duration training) {
        Path cache = jar.resolveSibling("queen-kv-node.aot");
        Path log = jar.resolveSibling("aot-training.log");
        List<String> command = List.of(java.toString(), "-XX:AOTCacheOutput=" + cache, "-Xlog:aot=error",
                "-jar", jar.toString(), "--train", Long.toString(training.toSeconds()));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(training.toSeconds() + 300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("the AOT training run did not end; see " + log);
            }
            if (p.exitValue() != 0 || !Files.isRegularFile(cache))
                throw new IllegalStateException("the AOT training run failed (exit " + p.exitValue() + "); see " + log);
            return cache;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + java, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The feature release of a {@code java -version} first line ({@code openjdk version "25.0.3" ...} is 25); 0 if unknown. */
    public static int featureRelease(String versionLine) {
        Matcher m = Pattern.compile("version \"(?:1\\.)?(\\d+)").matcher(versionLine);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }
}
