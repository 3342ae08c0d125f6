package io.queenkv.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import io.queenkv.client.Batch;
import io.queenkv.client.BatchResult;
import io.queenkv.client.GetManyResult;
import io.queenkv.client.GetPrefixResult;
import io.queenkv.client.GetResult;
import io.queenkv.client.Lifetime;
import io.queenkv.client.Op;
import io.queenkv.client.OpResult;
import io.queenkv.client.Row;
import io.queenkv.client.WriteReason;
import io.queenkv.client.WriteResult;

/** The key-value commands, each one SDK call (a listing one per page). */
final class KvCommands {
    private KvCommands() {}

    /** A value to write: JSON from the command line, or from stdin ({@code -}). */
    sealed interface Value {
        record Literal(JsonNode json) implements Value {}

        record Stdin() implements Value {}

        static Value parse(String arg) {
            if (arg.equals("-")) return new Stdin();
            try {
                return new Literal(Json.parse(arg.getBytes(StandardCharsets.UTF_8), "the value"));
            } catch (CliFailure e) {
                throw CliFailure.usage(e.getMessage() + " (a value is JSON: a string is written with its quotes, '\"paid\"')");
            }
        }

        default JsonNode read(Context ctx) {
            return this instanceof Literal l ? l.json() : Json.parse(ctx.readStdin(), "the value on stdin");
        }
    }

    record Get(String ns, String key) implements Command {
        @Override
        public Exit run(Context ctx) {
            GetResult<JsonNode> r = ctx.kv().get(ns, key);
            JsonNode json = ResultJson.element(0, "get", r);
            if (!r.found()) {
                ctx.out.printJson(json);
                throw new CliFailure(Exit.NOT_FOUND, ns + "/" + key + ": not found");
            }
            ctx.out.print(json, () -> rows(r.row().stream().toList(), false));
            return Exit.OK;
        }
    }

    record Put(String ns, String key, Value value, Lifetime lifetime, Long expect) implements Command {
        @Override
        public Exit run(Context ctx) {
            Op.Put op = Op.put(ns, key, value.read(ctx), lifetime);
            if (expect != null) op = op.expect(expect);
            return written(ctx, ns, op.name(), ctx.kv().write(op));
        }
    }

    record Delete(String ns, String key, Long expect) implements Command {
        @Override
        public Exit run(Context ctx) {
            Op.Delete op = Op.delete(ns, key);
            if (expect != null) op = op.expect(expect);
            return written(ctx, ns, op.name(), ctx.kv().write(op));
        }
    }

    record Incr(String ns, String key, Number by, Number min, Number max, Lifetime lifetime) implements Command {
        @Override
        public Exit run(Context ctx) {
            Op.Incr op = Op.incr(ns, key, by, lifetime);
            if (min != null) op = op.min(min);
            if (max != null) op = op.max(max);
            return written(ctx, ns, op.name(), ctx.kv().write(op));
        }
    }

    /**
     * Every live key with the prefix, page by page ({@code getPrefix}), up to {@code limit} rows
     * (null: all). When the limit stops it, {@code truncated} is true and {@code nextAfter} is the
     * last key shown: {@code --after} it lists the rest.
     */
    record ListKeys(String ns, String prefix, Integer limit, String after, boolean keysOnly) implements Command {
        /** The node's own page size; a smaller limit asks for one row more, to know whether more follow. */
        private static final int NODE_PAGE = 100;

        @Override
        public Exit run(Context ctx) {
            Op.GetPrefix query = Op.getPrefix(ns, prefix).after(after).keysOnly(keysOnly);
            if (limit != null && limit < NODE_PAGE) query = query.limit(limit + 1);
            Iterator<Row<JsonNode>> scan = ctx.kv().scan(query, JsonNode.class).iterator();
            List<Row<JsonNode>> rows = new ArrayList<>();
            while ((limit == null || rows.size() < limit) && scan.hasNext()) rows.add(scan.next());
            boolean truncated = limit != null && scan.hasNext();
            String nextAfter = truncated ? rows.get(rows.size() - 1).key() : null;
            ctx.out.print(ResultJson.page(rows, truncated, nextAfter), () -> rows(rows, keysOnly));
            if (truncated) ctx.out.note("(more keys follow: --after " + nextAfter + ")");
            return Exit.OK;
        }
    }

    /** One atomic call of the ops in a file (or stdin): the body of {@code POST /api/v1/kv}. */
    record BatchCall(String file, String idempotencyKey) implements Command {
        @Override
        public Exit run(Context ctx) {
            byte[] body = file == null || file.equals("-") ? ctx.readStdin() : read(Path.of(file));
            List<Op> ops = BatchFile.ops(Json.parse(body, file == null || file.equals("-") ? "the batch on stdin" : file));
            Batch batch = ctx.kv().batch();
            ops.forEach(batch::add);
            if (idempotencyKey != null) batch.idempotencyKey(idempotencyKey);
            BatchResult result = batch.execute();
            ctx.out.print(ResultJson.batch(ops, result), () -> batchTable(ops, result));
            if (result instanceof BatchResult.PreconditionFailed failed) {
                String what = "batch aborted, nothing written: op at index " + failed.failedIndex() + " (" + describe(failedOp(ops, failed))
                        + ") not applied (" + failed.kvReason().wire() + ")";
                throw new CliFailure(failed.kvReason() == WriteReason.ABSENT ? Exit.NOT_FOUND : Exit.NOT_APPLIED, what);
            }
            return Exit.OK;
        }

        private static byte[] read(Path file) {
            try {
                return Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                throw CliFailure.file(file + ": no such file", e);
            } catch (IOException e) {
                throw CliFailure.file(file + ": cannot be read: " + e.getMessage(), e);
            }
        }
    }

    // ---- results ----------------------------------------------------------------------------------

    /** Prints a write's result; not applied is exit 1 (the key is absent) or 5 (any other reason). */
    private static Exit written(Context ctx, String ns, String op, WriteResult w) {
        ctx.out.print(ResultJson.element(0, op, w),
                () -> Table.withHeader("KEY", "RESULT", "VERSION", "VALUE").row(w.key(), outcome(w), w.version(), w.value()));
        if (w.applied()) return Exit.OK;
        String where = ns + "/" + w.key() + ": ";
        throw switch (w.reason()) {
            case ABSENT -> new CliFailure(Exit.NOT_FOUND, where + "not found");
            case VERSION -> new CliFailure(Exit.NOT_APPLIED, where + "not applied (version): it is at version " + w.version());
            case EXISTS -> new CliFailure(Exit.NOT_APPLIED, where + "not applied (exists): it exists at version " + w.version());
            case LIMIT -> new CliFailure(Exit.NOT_APPLIED, where + "not applied (limit): the counter is at " + Json.text(w.value()));
            case TYPE -> new CliFailure(Exit.NOT_APPLIED, where + "not applied (type): it holds a value that is not a number");
        };
    }

    /** The required op that aborted the call (null if the node named no op of the call). */
    private static Op.WriteOp failedOp(List<Op> ops, BatchResult.PreconditionFailed failed) {
        int i = failed.failedIndex();
        return i >= 0 && i < ops.size() && ops.get(i) instanceof Op.WriteOp w ? w : null;
    }

    private static String describe(Op.WriteOp op) {
        return op == null ? "?" : op.name() + " " + op.ns() + "/" + op.key();
    }

    private static String outcome(WriteResult w) {
        return w.applied() ? "applied" : "not applied: " + w.reason().wire();
    }

    private static Table rows(List<Row<JsonNode>> rows, boolean keysOnly) {
        Table t = keysOnly ? Table.withHeader("KEY", "VERSION", "EXPIRES_AT", "UPDATED_AT")
                : Table.withHeader("KEY", "VERSION", "EXPIRES_AT", "UPDATED_AT", "VALUE");
        for (Row<JsonNode> r : rows) {
            Object expires = r.forever() ? "forever" : r.expiresAt();
            if (keysOnly) t.row(r.key(), r.version(), expires, r.updatedAt());
            else t.row(r.key(), r.version(), expires, r.updatedAt(), r.value());
        }
        return t;
    }

    /** One line per op, and one per row a getMany or getPrefix read. */
    private static Table batchTable(List<Op> ops, BatchResult result) {
        Table t = Table.withHeader("INDEX", "OP", "KEY", "RESULT", "VERSION", "VALUE");
        if (result instanceof BatchResult.PreconditionFailed failed) {
            Op.WriteOp op = failedOp(ops, failed);
            return t.row(failed.failedIndex(), op == null ? "" : op.name(), op == null ? "" : op.key(),
                    "aborted: " + failed.kvReason().wire(), failed.version(), failed.value());
        }
        List<OpResult> results = ((BatchResult.Completed) result).results();
        for (int i = 0; i < results.size(); i++) {
            String name = ops.get(i).name();
            OpResult r = results.get(i);
            if (r instanceof GetResult<?> get) {
                if (get.found()) t.row(i, name, get.key(), "found", get.version(), get.value());
                else t.row(i, name, get.key(), "absent", "", "");
            } else if (r instanceof GetManyResult<?> many) {
                for (Row<?> row : many.rows()) t.row(i, name, row.key(), "found", row.version(), row.value());
                for (String key : many.missing()) t.row(i, name, key, "absent", "", "");
                if (many.truncated()) t.row(i, name, "", "truncated", "", "");
            } else if (r instanceof GetPrefixResult<?> page) {
                for (Row<?> row : page.rows()) t.row(i, name, row.key(), "found", row.version(), row.value());
                if (page.truncated()) t.row(i, name, page.nextAfter(), "truncated: more after this key", "", "");
            } else if (r instanceof WriteResult w) {
                t.row(i, name, w.key(), w.applied() && name.equals("check") ? "holds" : outcome(w), w.version(),
                        name.equals("check") ? "" : w.value());
            }
        }
        return t;
    }
}
