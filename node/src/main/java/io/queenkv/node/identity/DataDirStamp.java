package io.queenkv.node.identity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import io.queenkv.node.DurableFiles;

/**
 * The stamp a node writes into its data dir on first start: the cluster id, its member id and a
 * fresh incarnation. Every later start checks it, so a data dir is only ever used by the member of
 * the cluster that created it; a data dir with files but no stamp is refused too (we cannot tell
 * whose it is).
 *
 * <p>The file is one {@code key=value} per line with a {@code format} version; an unknown version
 * is refused rather than guessed at.
 */
public final class DataDirStamp {
    public static final String FILE_NAME = "queen-kv-member";
    private static final int FORMAT = 1;
    /** What a freshly formatted volume may hold before anyone wrote to it. */
    private static final String TEMP_NAME = FILE_NAME + ".tmp";
    /** What an unused dir may hold: a fresh volume's lost+found, a stamp whose write a crash interrupted. */
    private static final List<String> IGNORED_IN_EMPTY_DIR = List.of("lost+found", TEMP_NAME);

    /** The identity in force, and whether this start created it (the data dir was empty). */
    public record Opened(MemberIdentity identity, boolean fresh) {}

    private DataDirStamp() {}

    /**
     * Reads the stamp of {@code dataDir}, or writes a new one when the dir is empty.
     *
     * @param configuredClusterId {@code QUEEN_KV_CLUSTER_ID}, or null when not set
     * @param lone whether this node is a cluster of itself (then a missing cluster id is generated)
     */
    public static Opened open(Path dataDir, String configuredClusterId, String nodeId, boolean lone) {
        Path file = dataDir.resolve(FILE_NAME);
        try {
            if (Files.exists(file)) return new Opened(check(read(file), dataDir, configuredClusterId, nodeId), false);
            Files.createDirectories(dataDir);
            try (Stream<Path> entries = Files.list(dataDir)) {
                List<String> found = entries.map(p -> p.getFileName().toString())
                        .filter(name -> !IGNORED_IN_EMPTY_DIR.contains(name)).sorted().toList();
                if (!found.isEmpty())
                    throw new IdentityException("data dir " + dataDir.toAbsolutePath() + " holds " + found
                            + " but no " + FILE_NAME + " stamp: it was not written by a Queen KV member of this version;"
                            + " give this node an empty data dir");
            }
            String clusterId = configuredClusterId;
            if (clusterId == null) {
                if (!lone) throw new IdentityException("QUEEN_KV_CLUSTER_ID is required for a member of a multi-node cluster"
                        + " (every member of one cluster gets the same value)");
                clusterId = UUID.randomUUID().toString();
            }
            MemberIdentity identity = new MemberIdentity(clusterId, nodeId, UUID.randomUUID().toString());
            write(file, identity);
            return new Opened(identity, true);
        } catch (IOException e) {
            throw new IdentityException("cannot use data dir " + dataDir.toAbsolutePath() + ": " + e.getMessage());
        }
    }

    private static MemberIdentity check(MemberIdentity stamped, Path dataDir, String configuredClusterId, String nodeId) {
        if (configuredClusterId != null && !configuredClusterId.equals(stamped.clusterId()))
            throw new IdentityException("data dir " + dataDir.toAbsolutePath() + " belongs to cluster " + stamped.clusterId()
                    + ", not to QUEEN_KV_CLUSTER_ID=" + configuredClusterId + "; give this node an empty data dir or the right cluster id");
        if (!nodeId.equals(stamped.nodeId()))
            throw new IdentityException("data dir " + dataDir.toAbsolutePath() + " belongs to member " + stamped.nodeId()
                    + ", not to QUEEN_KV_NODE_ID=" + nodeId);
        return stamped;
    }

    private static MemberIdentity read(Path file) throws IOException {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) continue;
            int eq = line.indexOf('=');
            if (eq <= 0) throw new IdentityException(file + " is not a member stamp (line '" + line + "')");
            fields.put(line.substring(0, eq), line.substring(eq + 1));
        }
        if (!String.valueOf(FORMAT).equals(fields.get("format")))
            throw new IdentityException(file + " has stamp format " + fields.get("format") + "; this version reads format " + FORMAT);
        String clusterId = fields.get("clusterId"), nodeId = fields.get("nodeId"), incarnation = fields.get("incarnation");
        if (clusterId == null || nodeId == null || incarnation == null || !MemberIdentity.CLUSTER_ID.matcher(clusterId).matches())
            throw new IdentityException(file + " is an incomplete member stamp");
        return new MemberIdentity(clusterId, nodeId, incarnation);
    }

    /** Written to a temporary file, forced to disk, then moved into place: a crash leaves no half stamp. */
    private static void write(Path file, MemberIdentity identity) throws IOException {
        String text = "# Queen KV member stamp: this data dir belongs to one member of one cluster. Do not edit.\n"
                + "format=" + FORMAT + "\n"
                + "clusterId=" + identity.clusterId() + "\n"
                + "nodeId=" + identity.nodeId() + "\n"
                + "incarnation=" + identity.incarnation() + "\n";
        Path temp = file.resolveSibling(TEMP_NAME);
        Files.writeString(temp, text, StandardCharsets.UTF_8);
        DurableFiles.force(temp);
        DurableFiles.moveIntoPlace(temp, file);
    }
}
