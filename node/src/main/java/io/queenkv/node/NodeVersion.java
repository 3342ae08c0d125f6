package io.queenkv.node;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** This build's version (Maven writes it into a resource at build time) and the Java runtime it runs on. */
public final class NodeVersion {
    private static final String VERSION = load();

    private NodeVersion() {}

    public static String version() {
        return VERSION;
    }

    public static String java() {
        return System.getProperty("java.runtime.version", System.getProperty("java.version"));
    }

    private static String load() {
        try (InputStream in = NodeVersion.class.getResourceAsStream("/queen-kv-version.properties")) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
