package io.queenkv.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.javalin.Javalin;
import io.javalin.router.ParsedEndpoint;
import io.queenkv.node.Node;
import io.queenkv.node.config.NodeConfig;
import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Setting;
import io.queenkv.node.kv.WriteReason;
import io.queenkv.node.testing.LocalNode;

/**
 * {@code docs/api.md} and {@code docs/openapi.json} against real nodes: every example of api.md is
 * sent, in document order, to a fresh node and answered as documented; every answer fits the
 * OpenAPI schema of its route and status; the routes the node serves are the routes the OpenAPI
 * document describes, both ways; and the reason codes and settings the documents list are the
 * node's. The last tests show that the checks do fail on a wrong answer, route or reason.
 */
class DocumentedExamplesTest {
    private static final Path DOCS = docsDir();

    @TempDir
    static Path dir;
    static ApiDoc doc;
    static OpenApi openApi;
    /** The nodes the examples run against, by the name api.md gives them, each fresh. */
    static final Map<String, ExampleNode> nodes = new LinkedHashMap<>();
    static final List<Exchange> exchanges = new ArrayList<>();

    /** A node and the ports the document's {@code :6632} and {@code :6634} stand for. */
    record ExampleNode(Node node, int httpPort, int raftPort) {
        String baseUrl() {
            return "http://127.0.0.1:" + httpPort;
        }

        /** The document's addresses as this node's. */
        String localise(String text) {
            return text.replace("localhost:6632", "localhost:" + httpPort).replace("127.0.0.1:6632", "127.0.0.1:" + httpPort)
                    .replace("127.0.0.1:6634", "127.0.0.1:" + raftPort);
        }
    }

    /** One example as sent and answered. {@code documented} is the example's answer with this node's addresses. */
    record Exchange(ApiDoc.Example example, ApiDoc.Response documented, RawHttp.Answer answer) {}

    @BeforeAll
    static void runTheExamples() throws IOException {
        doc = ApiDoc.read(DOCS.resolve("api.md"));
        openApi = OpenApi.read(DOCS.resolve("openapi.json"));
        for (ApiDoc.Example example : doc.examples) {
            ExampleNode node = node(example.node());
            exchanges.add(new Exchange(example, localise(example.response(), node), send(node, example.request())));
        }
    }

    @AfterAll
    static void stop() throws IOException {
        for (ExampleNode n : nodes.values()) n.node().close();
    }

    @Test
    void everyExampleIsAnsweredAsDocumented() {
        assertThat(exchanges).as("examples in api.md").hasSizeGreaterThan(20);
        List<String> problems = new ArrayList<>();
        for (Exchange x : exchanges)
            for (String p : ExampleMatcher.differences(x.documented(), x.answer(), x.example().request().bodyToFile()))
                problems.add(x.example() + ": " + p);
        assertThat(problems).as("examples answered otherwise than documented").isEmpty();
    }

    @Test
    void everyAnswerFitsTheSchemaOfItsRouteAndStatus() {
        List<String> problems = new ArrayList<>();
        for (Exchange x : exchanges) {
            ApiDoc.Request request = x.example().request();
            OpenApi.Operation op = openApi.operation(request.method(), request.path());
            if (op == null) {
                // A path no route serves is no operation; its 404 is the document's NotFound answer.
                if (x.answer().status() != 404) problems.add(x.example() + ": openapi.json has no operation for it");
                else for (String p : openApi.validate(openApi.jsonSchema(openApi.root.at("/components/responses/NotFound")), Wire.json(x.answer().body())))
                    problems.add(x.example() + ": answer 404: " + p);
                continue;
            }
            JsonNode response = openApi.response(op, x.answer().status());
            if (response == null) {
                problems.add(x.example() + ": " + op + " lists no answer " + x.answer().status());
                continue;
            }
            String contentType = x.answer().header("content-type");
            boolean json = contentType != null && contentType.startsWith("application/json") && !request.method().equals("HEAD");
            JsonNode schema = openApi.jsonSchema(response);
            if (json && schema == null) problems.add(x.example() + ": " + op + " " + x.answer().status() + " has no JSON schema");
            if (json && schema != null)
                for (String p : openApi.validate(schema, Wire.json(x.answer().body())))
                    problems.add(x.example() + ": answer " + x.answer().status() + ": " + p);
            // The requests of answered examples are valid requests; refused ones are meant not to be.
            if (x.answer().status() / 100 == 2 && request.body() != null) {
                JsonNode body = openApi.requestBody(op);
                JsonNode bodySchema = body == null ? null : openApi.jsonSchema(body);
                if (bodySchema == null) problems.add(x.example() + ": " + op + " describes no JSON request body");
                else for (String p : openApi.validate(bodySchema, Wire.json(request.body())))
                    problems.add(x.example() + ": request: " + p);
            }
        }
        assertThat(problems).as("answers and requests that do not fit openapi.json").isEmpty();
    }

    @Test
    void theNodeServesExactlyTheRoutesOpenApiDescribes() {
        ExampleNode node = node(ApiDoc.OPEN_NODE);
        assertThat(routeProblems(openApi, servedRoutes(node.node()))).isEmpty();
        // And by asking: no described route answers the router's own 404.
        List<String> unanswered = new ArrayList<>();
        for (OpenApi.Operation op : openApi.operations()) {
            String method = op.method().toUpperCase(Locale.ROOT);
            RawHttp.Answer a = send(node, new ApiDoc.Request(method, openApi.samplePath(op.template()), Map.of(), null, false));
            // The router's own 404 says "no route"; a HEAD answer has no body to say it, and no HEAD route answers 404.
            boolean routerNotFound = a.status() == 404 && (method.equals("HEAD") || a.body().contains("\"detail\":\"no route "));
            if (routerNotFound) unanswered.add(op + ": " + a.status() + " " + a.body());
        }
        assertThat(unanswered).as("described routes the node does not serve").isEmpty();
    }

    @Test
    void everyDescribedOperationHasAnExample() {
        Set<String> shown = new TreeSet<>();
        for (Exchange x : exchanges) {
            OpenApi.Operation op = openApi.operation(x.example().request().method(), x.example().request().path());
            if (op != null) shown.add(op.toString());
        }
        List<String> missing = openApi.operations().stream().filter(op -> !op.method().equals("head")).map(OpenApi.Operation::toString)
                .filter(op -> !shown.contains(op)).toList();
        assertThat(missing).as("operations of openapi.json without an example in api.md").isEmpty();
    }

    @Test
    void theReasonCodesAndSettingsAreTheNodes() {
        Set<String> reasons = Arrays.stream(Refusal.Reason.values()).map(Refusal.Reason::wire).collect(Collectors.toCollection(TreeSet::new));
        assertThat(enumOf("ReasonCode")).as("components.schemas.ReasonCode").isEqualTo(reasons);
        Set<String> writeReasons = Arrays.stream(WriteReason.values()).map(WriteReason::wire).collect(Collectors.toCollection(TreeSet::new));
        assertThat(enumOf("WriteReason")).as("components.schemas.WriteReason").isEqualTo(writeReasons);
        Set<String> settings = Setting.live().stream().map(s -> s.field).collect(Collectors.toCollection(TreeSet::new));
        assertThat(Wire.fieldNames(openApi.root.at("/components/schemas/Settings/properties"))).as("components.schemas.Settings")
                .containsExactlyInAnyOrderElementsOf(settings);
        // api.md says when each one happens, and some route of openapi.json lists it under its status.
        for (Refusal.Reason r : Refusal.Reason.values()) {
            assertThat(doc.text).as("api.md on " + r.wire()).contains("`" + r.wire() + "`");
            JsonNode body = Wire.json("{\"error\":\"" + r.error() + "\",\"reason\":\"" + r.wire() + "\",\"detail\":\"d\"}");
            boolean listed = openApi.operations().stream().anyMatch(op -> {
                JsonNode response = openApi.response(op, r.status());
                JsonNode schema = response == null ? null : openApi.jsonSchema(response);
                return schema != null && openApi.validate(schema, body).isEmpty();
            });
            assertThat(listed).as(r.status() + " " + r.wire() + " answered by some operation of openapi.json").isTrue();
        }
        for (WriteReason r : WriteReason.values()) assertThat(doc.text).as("api.md on " + r.wire()).contains("`" + r.wire() + "`");
    }

    // ---- the checks can fail

    @Test
    void aWrongAnswerIsReported() {
        Exchange health = exchanges.stream().filter(x -> x.example().request().path().equals("/healthz")).findFirst().orElseThrow();
        ApiDoc.Response wrong = new ApiDoc.Response(200, "OK", Map.of("Content-Type", "application/json"), "{\"status\":\"fine\"}");
        assertThat(ExampleMatcher.differences(wrong, health.answer(), false)).anyMatch(p -> p.contains("$.status"));
        ApiDoc.Response wrongStatus = new ApiDoc.Response(503, "Service Unavailable", Map.of(), "{\"status\":\"ok\"}");
        assertThat(ExampleMatcher.differences(wrongStatus, health.answer(), false)).anyMatch(p -> p.startsWith("status"));
        ApiDoc.Response placeholder = new ApiDoc.Response(200, "OK", Map.of(), "{\"status\":\"<integer>\"}");
        assertThat(ExampleMatcher.differences(placeholder, health.answer(), false)).isNotEmpty();
    }

    @Test
    void anUndocumentedRouteOrAnUnservedOneIsReported() {
        List<Route> served = servedRoutes(node(ApiDoc.OPEN_NODE).node());
        ObjectNode fewer = openApi.root.deepCopy();
        ((ObjectNode) fewer.get("paths")).remove("/api/v1/admin/snapshot");
        assertThat(routeProblems(OpenApi.of(fewer), served)).anyMatch(p -> p.contains("POST /api/v1/admin/snapshot"));
        ObjectNode more = openApi.root.deepCopy();
        ((ObjectNode) more.get("paths")).set("/api/v1/watch", Wire.json("{\"get\":{\"responses\":{}}}"));
        assertThat(routeProblems(OpenApi.of(more), served)).anyMatch(p -> p.contains("GET /api/v1/watch"));
    }

    @Test
    void aReasonOutsideTheEnumFailsTheSchema() {
        JsonNode error = openApi.root.at("/components/schemas/Error");
        assertThat(openApi.validate(error, Wire.json("{\"error\":\"kv_bad_request\",\"reason\":\"kv_bad_key\",\"detail\":\"x\"}"))).isEmpty();
        assertThat(openApi.validate(error, Wire.json("{\"error\":\"kv_bad_request\",\"reason\":\"kv_made_up\",\"detail\":\"x\"}"))).isNotEmpty();
        assertThat(openApi.validate(error, Wire.json("{\"error\":\"kv_bad_request\",\"detail\":\"x\"}"))).isNotEmpty();
    }

    // ---- helpers

    /** A route as Javalin holds it: method and path pattern. */
    record Route(String method, String path, ParsedEndpoint endpoint) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    /**
     * The routes a node serves, read from its Javalin router. The node keeps its server to itself,
     * so the test reaches it by reflection rather than adding an accessor only tests would use.
     */
    static List<Route> servedRoutes(Node node) {
        Javalin app = (Javalin) field(field(node, "http"), "app");
        return app.unsafe.internalRouter.allHttpHandlers().stream().filter(e -> e.endpoint.method.isHttpMethod())
                .map(e -> new Route(e.endpoint.method.name(), e.endpoint.path, e)).toList();
    }

    /** Served routes openapi.json does not describe, and described operations no route serves. */
    static List<String> routeProblems(OpenApi api, List<Route> served) {
        List<String> problems = new ArrayList<>();
        for (Route r : served)
            if (api.operation(r.method(), samplePath(r.path())) == null) problems.add("served but not described: " + r);
        for (OpenApi.Operation op : api.operations()) {
            String sample = api.samplePath(op.template());
            boolean servedHere = served.stream().anyMatch(r -> r.method().equalsIgnoreCase(op.method()) && r.endpoint().matches(sample));
            if (!servedHere) problems.add("described but not served: " + op);
        }
        return problems;
    }

    /** A concrete path for a Javalin pattern: {@code {x}} is one segment, {@code <x>} may span several. */
    private static String samplePath(String javalinPath) {
        return javalinPath.replaceAll("\\{[^}]+}", "p1").replaceAll("<[^>]+>", "p1/p2");
    }

    private static Object field(Object owner, String name) {
        try {
            Field f = owner.getClass().getDeclaredField(name);
            f.setAccessible(true);
            return f.get(owner);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot reach " + owner.getClass().getSimpleName() + "." + name + " to list the routes", e);
        }
    }

    private Set<String> enumOf(String schema) {
        Set<String> values = new TreeSet<>();
        for (JsonNode v : openApi.root.at("/components/schemas/" + schema + "/enum")) values.add(v.asText());
        return values;
    }

    /** The node an example names, started fresh on its first example. */
    private static ExampleNode node(String name) {
        return nodes.computeIfAbsent(name, n -> {
            try {
                int http = LocalNode.freePort(), raft = LocalNode.freePort();
                Map<String, String> env = new LinkedHashMap<>();
                env.put("QUEEN_KV_HTTP_PORT", Integer.toString(http));
                env.put("QUEEN_KV_RAFT_PORT", Integer.toString(raft));
                Path data = dir.resolve(n + "-data");
                switch (n) {
                    case ApiDoc.TOKENS_NODE -> {
                        assertThat(doc.tokensFile).as("the tokens file after <!-- example-node: tokens -->").isNotNull();
                        Path tokens = Files.writeString(dir.resolve("tokens.txt"), doc.tokensFile, StandardCharsets.UTF_8);
                        env.put("QUEEN_KV_TOKENS_FILE", tokens.toString());
                    }
                    case ApiDoc.WAITING_NODE -> {
                        // As api.md says: n4, not one of its peers, told the cluster exists; n1 is nowhere.
                        env.put("QUEEN_KV_NODE_ID", "n4");
                        env.put("QUEEN_KV_PEERS", "n1=127.0.0.1:" + LocalNode.freePort() + ":" + LocalNode.freePort());
                        env.put("QUEEN_KV_CLUSTER_ID", "docs-example");
                        env.put("QUEEN_KV_INITIAL_CLUSTER_STATE", "existing");
                        env.put("QUEEN_KV_DATA_DIR", data.toString());
                        // Never ready, by design: it serves HTTP once started, and waits.
                        return new ExampleNode(new Node(NodeConfig.fromEnv(env)), http, raft);
                    }
                    default -> {}
                }
                return new ExampleNode(LocalNode.start(data, env).node, http, raft);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static ApiDoc.Response localise(ApiDoc.Response r, ExampleNode node) {
        Map<String, String> headers = new LinkedHashMap<>();
        r.headers().forEach((k, v) -> headers.put(k, node.localise(v)));
        return new ApiDoc.Response(r.status(), r.phrase(), headers, node.localise(r.body()));
    }

    /** Sends the request as curl would: its headers, curl's own Host and Accept, the body as given. */
    static RawHttp.Answer send(ExampleNode node, ApiDoc.Request request) {
        byte[] body = request.body() == null ? null : node.localise(request.body()).getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(request.method()).append(' ').append(request.path()).append(" HTTP/1.1\r\n")
                .append("Host: localhost:").append(node.httpPort()).append("\r\nAccept: */*\r\nConnection: close\r\n");
        request.headers().forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        if (body != null) head.append("Content-Length: ").append(body.length).append("\r\n");
        head.append("\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.UTF_8);
        byte[] all = body == null ? h : Arrays.copyOf(h, h.length + body.length);
        if (body != null) System.arraycopy(body, 0, all, h.length, body.length);
        return RawHttp.exchange(node.baseUrl(), all, Duration.ofSeconds(30));
    }

    private static Path docsDir() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent())
            if (Files.isRegularFile(p.resolve("docs/api.md"))) return p.resolve("docs");
        throw new AssertionError("no docs/api.md above " + Path.of("").toAbsolutePath());
    }
}
