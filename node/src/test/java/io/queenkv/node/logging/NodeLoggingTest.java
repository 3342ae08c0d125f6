package io.queenkv.node.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.queenkv.node.testing.NodeProcess;

/** JSON log lines: one object per event, exceptions inside it; a real node writes nothing else, start to clean stop. */
class NodeLoggingTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void anEventWithAnExceptionIsOneLineOfJson() throws Exception {
        LoggerContext context = new LoggerContext();
        LoggingEvent event = new LoggingEvent("test", context.getLogger("io.queenkv.Example"), Level.WARN, "snapshot {} failed",
                new IllegalStateException("disk full"), new Object[] {42});
        String line = new String(new JsonLineEncoder().encode(event), StandardCharsets.UTF_8);
        assertThat(line).endsWith("\n");
        assertThat(line.strip().lines()).hasSize(1);
        JsonNode json = JSON.readTree(line);
        assertThat(json.get("level").asText()).isEqualTo("WARN");
        assertThat(json.get("logger").asText()).isEqualTo("io.queenkv.Example");
        assertThat(json.get("message").asText()).isEqualTo("snapshot 42 failed");
        assertThat(json.get("time").asText()).endsWith("Z");
        assertThat(json.get("error").asText()).contains("IllegalStateException: disk full").contains("\tat ");
    }

    /** gRPC inside Ratis logs through java.util.logging; its lines must be the node's lines, not JUL's own format. */
    @Test
    void javaUtilLoggingGoesIntoTheNodesLog() {
        LoggerContext context = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.start();
        ch.qos.logback.classic.Logger logger = context.getLogger("io.queenkv.jul");
        logger.addAppender(seen);
        try {
            java.util.logging.Logger.getLogger("io.queenkv.jul").warning("from java.util.logging");
            java.util.logging.Logger.getLogger("io.queenkv.jul").fine("below the level");
            assertThat(seen.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("from java.util.logging");
            assertThat(seen.list.get(0).getLevel()).isEqualTo(Level.WARN);
            assertThat(java.util.logging.Logger.getLogger("").getHandlers()).as("JUL's own console handler is gone")
                    .noneMatch(h -> h instanceof java.util.logging.ConsoleHandler);
        } finally {
            logger.detachAppender(seen);
        }
    }

    @Test
    void aNodeLogsOnlyJsonLinesFromStartToACleanStop(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("node.log");
        try (NodeProcess node = new NodeProcess(dir.resolve("data"), log, Map.of(NodeLogging.FORMAT, "json", NodeLogging.LEVEL, "info"))) {
            node.start();
            assertThat(node.send("POST", "/api/v1/kv", "[{\"op\":\"put\",\"ns\":\"log\",\"key\":\"k\",\"value\":1,\"forever\":true}]").statusCode())
                    .isEqualTo(200);
            node.stop();
        }
        List<String> lines = Files.readAllLines(log).stream().filter(l -> !l.isBlank()).toList();
        assertThat(lines).isNotEmpty();
        assertThat(lines).as("every line JSON").allMatch(l -> l.startsWith("{") && l.endsWith("}"));
        for (String line : lines) {
            JsonNode json = JSON.readTree(line);
            assertThat(json.isObject()).as(line).isTrue();
            assertThat(json.fieldNames()).toIterable().as(line).contains("time", "level", "logger", "thread", "message");
        }
        List<String> messages = lines.stream().map(l -> {
            try {
                return JSON.readTree(l).get("message").asText();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).toList();
        assertThat(messages).anyMatch(m -> m.contains("serving HTTP")).last().asString().contains("stopped cleanly");
    }
}
