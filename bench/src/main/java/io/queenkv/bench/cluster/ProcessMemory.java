package io.queenkv.bench.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Resident set size of a process, from Linux's /proc/&lt;pid&gt;/status. */
public final class ProcessMemory {
    private ProcessMemory() {}

    public static long rssBytes(long pid) {
        try {
            return parseVmRssBytes(Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the status of process " + pid, e);
        }
    }

    /** The {@code VmRSS:   123456 kB} line of a status file, in bytes. */
    static long parseVmRssBytes(List<String> statusLines) {
        for (String line : statusLines) {
            if (!line.startsWith("VmRSS:")) continue;
            String[] parts = line.substring("VmRSS:".length()).trim().split("\\s+");
            return Long.parseLong(parts[0]) * 1024;
        }
        throw new IllegalArgumentException("no VmRSS line");
    }
}
