package io.queenkv.bench.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How to start one member of a local cluster: the command, its environment, where it keeps its data
 * and log, the URL clients use, and the HTTP path that answers 200 once the member serves.
 */
public record MemberSpec(String name, List<String> command, Map<String, String> env, Path dataDir, Path logFile,
                         String clientUrl, String readyPath) {
    public MemberSpec {
        command = List.copyOf(command);
        env = Map.copyOf(env);
    }
}
