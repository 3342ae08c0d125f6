package io.queenkv.node.logging;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;

/**
 * One log event as one line of JSON: {@code time} (UTC, ISO-8601), {@code level}, {@code logger},
 * {@code thread}, {@code message}, and {@code error} (the exception with its frames, inside the string)
 * when there is one, so a log collector never has to stitch lines together.
 */
public final class JsonLineEncoder extends EncoderBase<ILoggingEvent> {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final byte[] NONE = new byte[0];

    @Override
    public byte[] headerBytes() {
        return NONE;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        ObjectNode line = MAPPER.createObjectNode();
        line.put("time", Instant.ofEpochMilli(event.getTimeStamp()).toString());
        line.put("level", event.getLevel().toString());
        line.put("logger", event.getLoggerName());
        line.put("thread", event.getThreadName());
        line.put("message", event.getFormattedMessage());
        if (event.getThrowableProxy() != null) line.put("error", ThrowableProxyUtil.asString(event.getThrowableProxy()));
        try {
            return (MAPPER.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            return ("{\"level\":\"ERROR\",\"message\":\"a log event could not be written as JSON\"}\n").getBytes(StandardCharsets.UTF_8);
        }
    }

    @Override
    public byte[] footerBytes() {
        return NONE;
    }
}
