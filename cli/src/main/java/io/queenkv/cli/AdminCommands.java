package io.queenkv.cli;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The cluster commands: {@code GET /api/v1/cluster} and the admin routes (README "Admin API"),
 * through {@link AdminClient}. With {@code -o json} each prints the node's answer as it came.
 */
final class AdminCommands {
    private AdminCommands() {}

    static final String CLUSTER = "/api/v1/cluster", SETTINGS = "/api/v1/admin/settings", MEMBERS = "/api/v1/admin/members",
            LEADERSHIP = "/api/v1/admin/leadership", BACKUP = "/api/v1/admin/backup";

    record ClusterStatus() implements Command {
        @Override
        public Exit run(Context ctx) {
            AdminClient.Answer answer = ctx.admin().get(CLUSTER);
            ctx.out.printJson(answer.body());
            ClusterView view = ClusterView.of(answer.body());
            ctx.out.table(Table.fields()
                    .row("node", view.nodeId() + " at " + answer.endpoint())
                    .row("role", view.role())
                    .row("cluster", view.clusterId())
                    .row("membership", view.membership())
                    .row("leader", view.leaderId() == null ? "(none known)" : view.leaderId())
                    .row("term", view.term())
                    .row("commit index", view.commitIndex())
                    .row("applied index", view.appliedIndex())
                    .row("readmitting", view.readmitting().isEmpty() ? "(none)" : String.join(", ", view.readmitting())));
            ctx.out.note("");
            ctx.out.table(members(view.members(), true));
            return Exit.OK;
        }
    }

    record MemberAdd(String id, String raftAddress, String httpAddress) implements Command {
        @Override
        public Exit run(Context ctx) {
            ObjectNode body = Json.MAPPER.createObjectNode().put("id", id).put("raftAddress", raftAddress).put("httpAddress", httpAddress);
            AdminClient.Answer answer = ctx.admin().post(MEMBERS, body);
            ctx.out.print(answer.body(), () -> members(ClusterView.members(answer.body()), false));
            return Exit.OK;
        }
    }

    record MemberRemove(String id) implements Command {
        @Override
        public Exit run(Context ctx) {
            AdminClient.Answer answer = ctx.admin().delete(MEMBERS + "/" + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20"));
            ctx.out.print(answer.body(), () -> members(ClusterView.members(answer.body()), false));
            return Exit.OK;
        }
    }

    /** Hands leadership to {@code to}, or to any other member when it is null. */
    record LeaderTransfer(String to) implements Command {
        @Override
        public Exit run(Context ctx) {
            ObjectNode body = Json.MAPPER.createObjectNode();
            if (to != null) body.put("to", to);
            AdminClient.Answer answer = ctx.admin().post(LEADERSHIP, body);
            ctx.out.print(answer.body(), () -> Table.fields().row("leader", answer.body().path("leaderId").asText()));
            return Exit.OK;
        }
    }

    /** The settings in force, from {@code /api/v1/cluster}, in the shape {@code settings set} answers. */
    record SettingsGet() implements Command {
        @Override
        public Exit run(Context ctx) {
            JsonNode cluster = ctx.admin().get(CLUSTER).body();
            ObjectNode settings = Json.MAPPER.createObjectNode();
            settings.set("settings", cluster.path("settings"));
            settings.set("settingsIndex", cluster.path("settingsIndex"));
            ctx.out.print(settings, () -> settingsTable(settings));
            return Exit.OK;
        }
    }

    record Assignment(String name, long value) {}

    /** Commits new values for some cluster-wide settings; the others keep theirs. */
    record SettingsSet(List<Assignment> assignments) implements Command {
        @Override
        public Exit run(Context ctx) {
            ObjectNode body = Json.MAPPER.createObjectNode();
            for (Assignment a : assignments) body.put(a.name(), a.value());
            AdminClient.Answer answer = ctx.admin().put(SETTINGS, body);
            ctx.out.print(answer.body(), () -> settingsTable(answer.body()));
            return Exit.OK;
        }
    }

    /**
     * Streams a backup into {@code file} (which must not exist yet): first into a temporary file
     * beside it, checked (format, CRC32C, the key count of the headers) and only then renamed, so
     * {@code file} is either a sound backup or not there.
     */
    record Backup(Path file) implements Command {
        @Override
        public Exit run(Context ctx) {
            Path target = file.toAbsolutePath();
            if (Files.exists(target)) throw new CliFailure(Exit.FILE, file + " exists; choose another file or remove it first");
            Path partial;
            try {
                partial = Files.createTempFile(target.getParent(), target.getFileName() + ".", ".partial");
            } catch (IOException e) {
                throw CliFailure.file(target.getParent() + ": cannot write a file there: " + e.getMessage(), e);
            }
            try {
                AdminClient.Download download = ctx.admin().download(BACKUP, partial);
                BackupFile checked;
                try {
                    checked = BackupFile.verify(partial);
                } catch (CliFailure e) {
                    throw new CliFailure(Exit.FILE, "the backup from " + download.endpoint() + " fails its check, "
                            + file + " is not written: " + e.getMessage());
                }
                if (download.keys() >= 0 && download.keys() != checked.keys())
                    throw new CliFailure(Exit.FILE, "the backup from " + download.endpoint() + " holds " + checked.keys()
                            + " keys where its header X-Queen-KV-Keys says " + download.keys());
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
                BackupFile backup = checked.at(target);
                ObjectNode json = summary(backup);
                json.put("endpoint", download.endpoint().toString());
                json.put("logIndex", download.logIndex());
                ctx.out.print(json, () -> summaryTable(backup)
                        .row("from", download.endpoint())
                        .row("log index", download.logIndex()));
                return Exit.OK;
            } catch (IOException e) {
                throw CliFailure.file(file + ": cannot be written: " + e.getMessage(), e);
            } finally {
                try {
                    Files.deleteIfExists(partial);
                } catch (IOException ignored) {
                    // a leftover .partial file says what it is
                }
            }
        }
    }

    /**
     * Checks a backup file offline and prints how a new cluster starts from it: each initial member
     * with {@code QUEEN_KV_RESTORE_FROM} naming the file.
     */
    record Restore(Path file) implements Command {
        static final String RESTORE_ENV = "QUEEN_KV_RESTORE_FROM";

        @Override
        public Exit run(Context ctx) {
            BackupFile backup = BackupFile.verify(file.toAbsolutePath());
            String command = RESTORE_ENV + "=" + shellQuoted(backup.file().toString()) + " java -jar node/target/queen-kv-node.jar";
            ObjectNode json = summary(backup);
            json.put("restoreCommand", command);
            ctx.out.print(json, () -> summaryTable(backup));
            ctx.out.note("");
            ctx.out.note("The backup is sound. A new cluster starts from it with " + RESTORE_ENV + " on every one of its initial");
            ctx.out.note("members (empty data dirs, QUEEN_KV_INITIAL_CLUSTER_STATE=new, a new QUEEN_KV_CLUSTER_ID):");
            ctx.out.note("  " + command);
            return Exit.OK;
        }
    }

    // ---- output -----------------------------------------------------------------------------------

    private static Table members(List<ClusterView.Member> members, boolean withRole) {
        Table t = withRole ? Table.withHeader("ID", "ROLE", "RAFT_ADDRESS", "HTTP_ADDRESS") : Table.withHeader("ID", "RAFT_ADDRESS", "HTTP_ADDRESS");
        for (ClusterView.Member m : members) {
            if (withRole) t.row(m.id(), m.role(), m.raftAddress(), m.httpAddress());
            else t.row(m.id(), m.raftAddress(), m.httpAddress());
        }
        return t;
    }

    private static Table settingsTable(JsonNode answer) {
        Table t = Table.fields();
        for (Map.Entry<String, JsonNode> e : answer.path("settings").properties()) t.row(e.getKey(), e.getValue());
        return t.row("settingsIndex", answer.path("settingsIndex"));
    }

    private static ObjectNode summary(BackupFile b) {
        return Json.MAPPER.createObjectNode()
                .put("file", b.file().toString())
                .put("bytes", b.bytes())
                .put("format", b.format())
                .put("keys", b.keys())
                .put("nextVersion", b.nextVersion())
                .put("lastWriteAt", ResultJson.timestamp(b.lastWriteAt()))
                .put("settingsIndex", b.settingsIndex())
                .put("crc32c", b.crcHex());
    }

    private static Table summaryTable(BackupFile b) {
        return Table.fields()
                .row("file", b.file())
                .row("keys", b.keys())
                .row("bytes", b.bytes())
                .row("format", b.format())
                .row("next version", b.nextVersion())
                .row("last write", b.lastWriteAt())
                .row("settings index", b.settingsIndex())
                .row("crc32c", b.crcHex() + " (matches)");
    }

    private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_./:=@%+-]+");

    private static String shellQuoted(String s) {
        return SHELL_SAFE.matcher(s).matches() ? s : "'" + s.replace("'", "'\\''") + "'";
    }
}
