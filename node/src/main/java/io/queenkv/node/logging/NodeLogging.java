package io.queenkv.node.logging;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * The node's logging, from the environment (found by logback through {@code META-INF/services}):
 * {@code QUEEN_KV_LOG_FORMAT} {@code text} (the default) or {@code json} (one JSON object per line, the
 * node image's default), {@code QUEEN_KV_LOG_LEVEL} {@code error|warn|info|debug|trace} (default
 * {@code info}), to stderr, java.util.logging (gRPC's) included. Ratis, Jetty and Javalin log at warn
 * unless the level is debug or trace. A
 * value it does not know falls back to the default here; {@code NodeConfig} refuses it at start-up.
 */
public final class NodeLogging extends ContextAwareBase implements Configurator {
    public static final String FORMAT = "QUEEN_KV_LOG_FORMAT", LEVEL = "QUEEN_KV_LOG_LEVEL";
    public static final List<String> FORMATS = List.of("text", "json");
    public static final List<String> LEVELS = List.of("error", "warn", "info", "debug", "trace");
    private static final List<String> CHATTY = List.of("org.apache.ratis", "org.eclipse.jetty", "io.javalin");

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        Map<String, String> env = System.getenv();
        String format = choice(env.get(FORMAT), FORMATS, "text");
        Level level = Level.toLevel(choice(env.get(LEVEL), LEVELS, "info"), Level.INFO);

        Encoder<ILoggingEvent> encoder;
        if (format.equals("json")) {
            encoder = new JsonLineEncoder();
        } else {
            PatternLayoutEncoder text = new PatternLayoutEncoder();
            text.setPattern("%d{yyyy-MM-dd'T'HH:mm:ss.SSSX, UTC} [%thread] %level %logger{0} - %msg%n");
            text.setContext(context);
            encoder = text;
        }
        encoder.setContext(context);
        encoder.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("stderr");
        console.setTarget("System.err");
        console.setEncoder(encoder);
        console.start();

        // java.util.logging (gRPC's) goes into the same lines, its levels kept in step with the ones set below.
        LevelChangePropagator levels = new LevelChangePropagator();
        levels.setContext(context);
        levels.setResetJUL(true);
        context.addListener(levels);
        levels.start();
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(level);
        root.addAppender(console);
        Level chatty = level.isGreaterOrEqual(Level.INFO) ? Level.WARN : level;
        for (String name : CHATTY) context.getLogger(name).setLevel(chatty);
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** {@code value} lower-cased when it is one of {@code allowed}, else {@code fallback}. */
    static String choice(String value, List<String> allowed, String fallback) {
        if (value == null || value.isBlank()) return fallback;
        String v = value.trim().toLowerCase(Locale.ROOT);
        return allowed.contains(v) ? v : fallback;
    }
}
