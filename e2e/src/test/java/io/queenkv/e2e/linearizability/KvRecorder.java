package io.queenkv.e2e.linearizability;

import java.math.BigDecimal;
import java.util.List;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queenkv.e2e.harness.KvHttp;

/**
 * Runs single-op KV calls through {@link KvHttp} and records them as a {@link KvModel} history
 * (one partition per {@code ns/key}). Thread-safe: share one recorder between client threads, each
 * with its own client id.
 *
 * <ul>
 *   <li>an answered 200 is recorded with its call and return times ({@link System#nanoTime()});</li>
 *   <li>a timeout, 503 or connection failure of a <em>write</em> is recorded as an unknown outcome
 *       (return = +infinity); of a <em>read</em> it is dropped (a read has no effect);</li>
 *   <li>any other status (400, 429, …) is a refusal: nothing was applied, nothing is recorded.</li>
 * </ul>
 * Writes use {@code forever:true} (the model has no TTLs).
 */
public final class KvRecorder {
    private final KvHttp http;
    private final HistoryRecorder<KvModel.Input, KvModel.Output> history = new HistoryRecorder<>();

    public KvRecorder(KvHttp http) {
        this.http = http;
    }

    public List<Operation<KvModel.Input, KvModel.Output>> history() {
        return history.snapshot();
    }

    public LinearizabilityChecker.Result check() {
        return LinearizabilityChecker.check(KvModel.INSTANCE, history());
    }

    private static String k(String ns, String key) {
        return ns + "/" + key;
    }

    public KvHttp.Reply get(int client, String url, String ns, String key) {
        return run(client, url, new KvModel.Get(k(ns, key)), KvHttp.opGet(ns, key), KvRecorder::read, false);
    }

    public KvHttp.Reply put(int client, String url, String ns, String key, JsonNode value) {
        return run(client, url, new KvModel.Put(k(ns, key), value.toString()), KvHttp.opPut(ns, key, value), KvRecorder::write, true);
    }

    public KvHttp.Reply cas(int client, String url, String ns, String key, long expect, JsonNode value) {
        return run(client, url, new KvModel.Cas(k(ns, key), expect, value.toString()), KvHttp.opCas(ns, key, expect, value),
                KvRecorder::write, true);
    }

    public KvHttp.Reply putIfAbsent(int client, String url, String ns, String key, JsonNode value) {
        return run(client, url, new KvModel.PutIfAbsent(k(ns, key), value.toString()), KvHttp.opPutIfAbsent(ns, key, value),
                KvRecorder::write, true);
    }

    public KvHttp.Reply delete(int client, String url, String ns, String key) {
        return run(client, url, new KvModel.Delete(k(ns, key)), KvHttp.opDelete(ns, key), KvRecorder::write, true);
    }

    public KvHttp.Reply incr(int client, String url, String ns, String key, long delta) {
        return run(client, url, new KvModel.Incr(k(ns, key), BigDecimal.valueOf(delta)), KvHttp.opIncr(ns, key, delta),
                KvRecorder::write, true);
    }

    private KvHttp.Reply run(int client, String url, KvModel.Input input, ObjectNode op,
            Function<JsonNode, KvModel.Output> parse, boolean isWrite) {
        long call = System.nanoTime();
        KvHttp.Reply reply = http.call(url, op);
        long ret = System.nanoTime();
        if (reply.unknown()) {
            if (isWrite) history.unknown(client, input, call, KvModel.UNKNOWN);
        } else if (reply.ok() && reply.body().has("results")) {
            history.completed(client, input, call, ret, parse.apply(reply.result(0)));
        }
        return reply;
    }

    static KvModel.Output read(JsonNode e) {
        if (!e.path("found").asBoolean()) return KvModel.Read.absent();
        return KvModel.Read.of(e.get("value").toString(), e.get("version").asLong());
    }

    static KvModel.Output write(JsonNode e) {
        JsonNode v = e.get("value");
        String value = v == null ? null : v.toString();
        long version = e.path("version").asLong();
        return e.path("applied").asBoolean() ? KvModel.Write.applied(value, version) : KvModel.Write.lost(value, version);
    }
}
