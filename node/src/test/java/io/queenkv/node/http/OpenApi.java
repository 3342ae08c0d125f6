package io.queenkv.node.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code docs/openapi.json}, read for what the tests need: which operation a request reaches, the
 * schema of its request body and of each answer, and a check of JSON against those schemas.
 *
 * <p>The check covers the part of JSON Schema 2020-12 the document uses ({@link #VALIDATING}); a
 * keyword outside it is reported rather than ignored, so the document cannot promise a rule that
 * nothing checks.
 */
final class OpenApi {
    static final List<String> METHODS = List.of("get", "head", "post", "put", "delete", "patch", "options", "trace");
    private static final Set<String> VALIDATING = Set.of("$ref", "type", "enum", "const", "properties", "required",
            "additionalProperties", "items", "oneOf", "anyOf", "allOf", "minimum", "maximum", "minLength", "maxLength",
            "pattern", "minItems");
    private static final Set<String> ANNOTATIONS = Set.of("description", "title", "examples", "format", "default",
            "$comment", "deprecated", "readOnly", "writeOnly", "contentMediaType");

    /** A path and method of the document. */
    record Operation(String template, String method, JsonNode node) {
        @Override
        public String toString() {
            return method.toUpperCase(Locale.ROOT) + " " + template;
        }
    }

    final JsonNode root;

    private OpenApi(JsonNode root) {
        this.root = root;
    }

    static OpenApi read(Path file) {
        try {
            return new OpenApi(Wire.JSON.readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static OpenApi of(JsonNode root) {
        return new OpenApi(root);
    }

    List<Operation> operations() {
        List<Operation> ops = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.path("paths").fields(); it.hasNext(); ) {
            var path = it.next();
            for (String m : METHODS) if (path.getValue().has(m)) ops.add(new Operation(path.getKey(), m, path.getValue().get(m)));
        }
        return ops;
    }

    /** The operation a request for {@code method} on {@code rawPath} (query string aside) reaches, or null. */
    Operation operation(String method, String rawPath) {
        String path = rawPath.contains("?") ? rawPath.substring(0, rawPath.indexOf('?')) : rawPath;
        for (Operation op : operations())
            if (op.method().equalsIgnoreCase(method) && templatePattern(op.template()).matcher(path).matches()) return op;
        return null;
    }

    /**
     * A path template as a pattern: a parameter is one path segment, or the rest of the path when
     * its path-level declaration says {@code x-rest-of-path} (a key may hold slashes).
     */
    Pattern templatePattern(String template) {
        return Pattern.compile(expand(template, "[^/]+", ".+", true));
    }

    /** A concrete path the template matches: {@code p1} for a parameter, {@code p1/p2} for a rest-of-path one. */
    String samplePath(String template) {
        return expand(template, "p1", "p1/p2", false);
    }

    private String expand(String template, String segment, String rest, boolean quote) {
        JsonNode params = root.path("paths").path(template).path("parameters");
        StringBuilder out = new StringBuilder();
        var m = Pattern.compile("\\{([^}]+)}").matcher(template);
        int last = 0;
        while (m.find()) {
            boolean restOfPath = false;
            for (JsonNode p : params) {
                JsonNode param = resolve(p);
                if (param.path("name").asText().equals(m.group(1)) && param.path("x-rest-of-path").asBoolean()) restOfPath = true;
            }
            String literal = template.substring(last, m.start());
            out.append(quote ? Pattern.quote(literal) : literal).append(restOfPath ? rest : segment);
            last = m.end();
        }
        out.append(quote ? Pattern.quote(template.substring(last)) : template.substring(last));
        return out.toString();
    }

    /** The answer of {@code op} for {@code status}, resolved; null when the document does not list that status. */
    JsonNode response(Operation op, int status) {
        JsonNode r = op.node().path("responses").get(Integer.toString(status));
        return r == null ? null : resolve(r);
    }

    /** The JSON schema of an answer, or null when the answer has no JSON body. */
    JsonNode jsonSchema(JsonNode responseOrBody) {
        JsonNode content = responseOrBody.path("content");
        for (Iterator<String> it = content.fieldNames(); it.hasNext(); ) {
            String type = it.next();
            if (type.startsWith("application/json")) return content.get(type).path("schema");
        }
        return null;
    }

    /** The request body of {@code op}, resolved, or null. */
    JsonNode requestBody(Operation op) {
        JsonNode b = op.node().get("requestBody");
        return b == null ? null : resolve(b);
    }

    JsonNode resolve(JsonNode node) {
        for (int depth = 0; node.has("$ref"); depth++) {
            if (depth > 20) throw new IllegalStateException("a $ref loop at " + node);
            node = pointer(node.get("$ref").asText());
        }
        return node;
    }

    private JsonNode pointer(String ref) {
        if (!ref.startsWith("#/")) throw new IllegalArgumentException("only local $refs: " + ref);
        JsonNode target = root.at(ref.substring(1));
        if (target.isMissingNode()) throw new IllegalArgumentException("$ref to nothing: " + ref);
        return target;
    }

    /** The problems of {@code value} against {@code schema}; empty when it is valid. */
    List<String> validate(JsonNode schema, JsonNode value) {
        List<String> problems = new ArrayList<>();
        validate(schema, value, "$", problems);
        return problems;
    }

    private void validate(JsonNode schema, JsonNode value, String at, List<String> problems) {
        if (schema.isBoolean()) {
            if (!schema.booleanValue()) problems.add(at + ": no value is allowed here");
            return;
        }
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String keyword = it.next();
            if (!VALIDATING.contains(keyword) && !ANNOTATIONS.contains(keyword) && !keyword.startsWith("x-"))
                problems.add(at + ": schema keyword '" + keyword + "' is not checked by this test; use another or extend OpenApi");
        }
        if (schema.has("$ref")) validate(pointer(schema.get("$ref").asText()), value, at, problems);
        if (schema.has("type")) {
            boolean any = false;
            for (JsonNode t : schema.get("type").isArray() ? schema.get("type") : Wire.JSON.createArrayNode().add(schema.get("type")))
                any |= hasType(value, t.asText());
            if (!any) {
                problems.add(at + ": " + value + " is not of type " + schema.get("type"));
                return;
            }
        }
        if (schema.has("const") && !sameJson(schema.get("const"), value)) problems.add(at + ": " + value + " is not " + schema.get("const"));
        if (schema.has("enum")) {
            boolean in = false;
            for (JsonNode e : schema.get("enum")) in |= sameJson(e, value);
            if (!in) problems.add(at + ": " + value + " is not one of " + schema.get("enum"));
        }
        if (value.isNumber()) {
            if (schema.has("minimum") && value.decimalValue().compareTo(schema.get("minimum").decimalValue()) < 0)
                problems.add(at + ": " + value + " is below " + schema.get("minimum"));
            if (schema.has("maximum") && value.decimalValue().compareTo(schema.get("maximum").decimalValue()) > 0)
                problems.add(at + ": " + value + " is above " + schema.get("maximum"));
        }
        if (value.isTextual()) {
            int length = value.textValue().codePointCount(0, value.textValue().length());
            if (schema.has("minLength") && length < schema.get("minLength").asInt()) problems.add(at + ": " + value + " is too short");
            if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) problems.add(at + ": " + value + " is too long");
            if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(value.textValue()).find())
                problems.add(at + ": " + value + " does not match " + schema.get("pattern"));
        }
        if (value.isObject()) {
            JsonNode properties = schema.path("properties");
            for (JsonNode r : schema.path("required"))
                if (!value.has(r.asText())) problems.add(at + ": required field '" + r.asText() + "' is missing");
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                var field = it.next();
                if (properties.has(field.getKey())) validate(properties.get(field.getKey()), field.getValue(), at + "." + field.getKey(), problems);
                else if (schema.has("additionalProperties"))
                    validate(schema.get("additionalProperties"), field.getValue(), at + "." + field.getKey(), problems);
            }
        }
        if (value.isArray()) {
            if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) problems.add(at + ": fewer than " + schema.get("minItems") + " items");
            if (schema.has("items")) for (int i = 0; i < value.size(); i++) validate(schema.get("items"), value.get(i), at + "[" + i + "]", problems);
        }
        for (JsonNode sub : schema.path("allOf")) validate(sub, value, at, problems);
        if (schema.has("anyOf") && alternatives(schema.get("anyOf"), value, at).matching == 0)
            problems.add(at + ": matches none of anyOf: " + alternatives(schema.get("anyOf"), value, at).why);
        if (schema.has("oneOf")) {
            Alternatives a = alternatives(schema.get("oneOf"), value, at);
            if (a.matching != 1) problems.add(at + ": matches " + a.matching + " of oneOf, not exactly one" + (a.matching == 0 ? ": " + a.why : ""));
        }
    }

    private record Alternatives(int matching, List<String> why) {}

    private Alternatives alternatives(JsonNode schemas, JsonNode value, String at) {
        int matching = 0;
        List<String> why = new ArrayList<>();
        for (JsonNode s : schemas) {
            List<String> p = new ArrayList<>();
            validate(s, value, at, p);
            if (p.isEmpty()) matching++;
            else why.add(s.has("$ref") ? s.get("$ref").asText() + ": " + p.get(0) : p.get(0));
        }
        return new Alternatives(matching, why);
    }

    private static boolean hasType(JsonNode v, String type) {
        return switch (type) {
            case "object" -> v.isObject();
            case "array" -> v.isArray();
            case "string" -> v.isTextual();
            case "boolean" -> v.isBoolean();
            case "null" -> v.isNull();
            case "number" -> v.isNumber();
            case "integer" -> v.isIntegralNumber() || (v.isNumber() && v.decimalValue().stripTrailingZeros().scale() <= 0);
            default -> throw new IllegalArgumentException("unknown type " + type);
        };
    }

    private static boolean sameJson(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) return a.decimalValue().compareTo(b.decimalValue()) == 0;
        return a.equals(b);
    }
}
