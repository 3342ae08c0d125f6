package io.queenkv.node.http;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.eclipse.jetty.http.HttpStatus;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Compares a documented answer with the node's: the status (and its phrase), every header the
 * document shows, and the body: JSON as JSON (field order aside), other text line by line, the
 * document's lines in the answer in that order. Placeholders ({@link ApiDoc#PLACEHOLDERS}) stand
 * for what varies. Answers a list of differences, empty when the answer is as documented.
 */
final class ExampleMatcher {
    private ExampleMatcher() {}

    static List<String> differences(ApiDoc.Response documented, RawHttp.Answer actual, boolean bodyToFile) {
        List<String> problems = new ArrayList<>();
        if (actual.status() != documented.status())
            problems.add("status: documented " + documented.status() + ", answered " + actual.status() + " " + actual.body());
        String phrase = HttpStatus.getMessage(documented.status());
        if (!documented.phrase().equals(phrase))
            problems.add("status line: the phrase of " + documented.status() + " is '" + phrase + "', not '" + documented.phrase() + "'");
        for (Map.Entry<String, String> h : documented.headers().entrySet()) {
            String value = actual.header(h.getKey());
            if (value == null) problems.add("header " + h.getKey() + ": documented, not answered");
            else if (!ApiDoc.pattern(h.getValue()).matcher(value).matches())
                problems.add("header " + h.getKey() + ": documented '" + h.getValue() + "', answered '" + value + "'");
        }
        if (bodyToFile) return problems; // curl -o: the body went to a file, the answer shows none
        String contentType = documented.header("Content-Type");
        if (documented.body().isEmpty()) {
            if (!actual.body().isEmpty()) problems.add("body: documented none, answered " + actual.body());
        } else if (contentType != null && contentType.startsWith("application/json")) {
            jsonDifferences(documented.body(), actual.body(), problems);
        } else {
            textDifferences(documented.body(), actual.body(), problems);
        }
        return problems;
    }

    private static void jsonDifferences(String documented, String actual, List<String> problems) {
        JsonNode doc;
        try {
            doc = Wire.JSON.readTree(documented);
        } catch (JsonProcessingException e) {
            problems.add("body: the documented body is not JSON: " + e.getOriginalMessage());
            return;
        }
        JsonNode got;
        try {
            got = Wire.JSON.readTree(actual);
        } catch (JsonProcessingException e) {
            problems.add("body: the answer is not JSON: " + actual);
            return;
        }
        int before = problems.size();
        compare("$", doc, got, problems);
        if (problems.size() > before) problems.add("answered body: " + actual);
    }

    /** Structural comparison; {@code doc} may hold placeholders where {@code got} has real values. */
    static void compare(String at, JsonNode doc, JsonNode got, List<String> problems) {
        if (doc.isTextual()) {
            String kind = ApiDoc.wholePlaceholder(doc.textValue());
            if ("integer".equals(kind) || "number".equals(kind)) {
                boolean fits = kind.equals("integer") ? got.isIntegralNumber() && got.asLong() >= 0 : got.isNumber();
                if (!fits) problems.add(at + ": documented " + doc + ", answered " + got);
                return;
            }
            if (!got.isTextual() || !ApiDoc.pattern(doc.textValue()).matcher(got.textValue()).matches())
                problems.add(at + ": documented " + doc + ", answered " + got);
            return;
        }
        if (doc.isObject()) {
            if (!got.isObject()) {
                problems.add(at + ": documented an object, answered " + got);
                return;
            }
            TreeSet<String> docFields = names(doc), gotFields = names(got);
            if (!docFields.equals(gotFields)) problems.add(at + ": documented fields " + docFields + ", answered " + gotFields);
            for (String f : docFields) if (got.has(f)) compare(at + "." + f, doc.get(f), got.get(f), problems);
            return;
        }
        if (doc.isArray()) {
            if (!got.isArray() || got.size() != doc.size()) {
                problems.add(at + ": documented " + doc + ", answered " + got);
                return;
            }
            for (int i = 0; i < doc.size(); i++) compare(at + "[" + i + "]", doc.get(i), got.get(i), problems);
            return;
        }
        boolean same = doc.isNumber() && got.isNumber() ? doc.decimalValue().compareTo(got.decimalValue()) == 0 : doc.equals(got);
        if (!same) problems.add(at + ": documented " + doc + ", answered " + got);
    }

    /** Each documented line matches a line of the answer, in the document's order (the rest is left out). */
    private static void textDifferences(String documented, String actual, List<String> problems) {
        List<String> lines = actual.lines().toList();
        int next = 0;
        for (String line : documented.lines().toList()) {
            var p = ApiDoc.pattern(line);
            int found = -1;
            for (int i = next; i < lines.size() && found < 0; i++) if (p.matcher(lines.get(i)).matches()) found = i;
            if (found < 0) problems.add("body: documented line '" + line + "' is not in the answer (in that order)");
            else next = found + 1;
        }
    }

    private static TreeSet<String> names(JsonNode node) {
        TreeSet<String> names = new TreeSet<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) names.add(it.next());
        return names;
    }
}
