package io.queenkv.node.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The examples of {@code docs/api.md}, read the way its "Reading the examples" section describes:
 * a fenced {@code bash} block holding one {@code curl} command, then a fenced {@code http} block
 * with the answer (status line, the headers that matter, the body). Every {@code curl} of a
 * {@code bash} block is an example, so none goes unchecked. An HTML comment
 * {@code <!-- example-node: NAME -->} says which node the examples after it run against; the first
 * fenced block after {@code <!-- example-node: tokens -->} is that node's tokens file.
 */
final class ApiDoc {
    /** Where the examples send their requests; the test points it at a real node. */
    static final String DOC_BASE_URL = "http://localhost:6632";
    /** The nodes: auth off; auth on with the document's tokens file; one waiting to be added to a group. */
    static final String OPEN_NODE = "open", TOKENS_NODE = "tokens", WAITING_NODE = "waiting";

    /** A fenced block: its info string, its text, the 1-based line of its opening fence, the node in effect. */
    record Block(String info, String text, int line, String node) {}

    /** A request as curl would send it. {@code bodyToFile}: {@code -o}, so the answer shows no body. */
    record Request(String method, String path, Map<String, String> headers, String body, boolean bodyToFile) {}

    /** A documented answer: status, reason phrase, the headers shown, the body text (possibly empty). */
    record Response(int status, String phrase, Map<String, String> headers, String body) {
        String header(String name) {
            for (var h : headers.entrySet()) if (h.getKey().equalsIgnoreCase(name)) return h.getValue();
            return null;
        }
    }

    record Example(int line, String node, String curl, Request request, Response response) {
        @Override
        public String toString() {
            return "api.md line " + line + ": " + request.method() + " " + request.path();
        }
    }

    final String text;
    final List<Example> examples;
    /** The tokens file of the {@code tokens} node, as the document shows it; null when there is none. */
    final String tokensFile;

    private ApiDoc(String text, List<Example> examples, String tokensFile) {
        this.text = text;
        this.examples = examples;
        this.tokensFile = tokensFile;
    }

    static ApiDoc read(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final Pattern DIRECTIVE = Pattern.compile("<!--\\s*example-node:\\s*([a-z-]+)\\s*-->");

    static ApiDoc parse(String markdown) {
        List<Block> blocks = new ArrayList<>();
        String node = OPEN_NODE;
        boolean tokensFileNext = false;
        String tokensFile = null;
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher directive = DIRECTIVE.matcher(line);
            if (directive.find()) {
                node = directive.group(1);
                if (!List.of(OPEN_NODE, TOKENS_NODE, WAITING_NODE).contains(node))
                    throw new IllegalArgumentException("api.md line " + (i + 1) + ": unknown example node '" + node + "'");
                tokensFileNext = node.equals(TOKENS_NODE) && tokensFile == null;
                continue;
            }
            if (!line.startsWith("```")) continue;
            String info = line.substring(3).trim();
            StringBuilder body = new StringBuilder();
            int start = i;
            for (i++; i < lines.length && !lines[i].startsWith("```"); i++) body.append(lines[i]).append('\n');
            if (i == lines.length) throw new IllegalArgumentException("api.md line " + (start + 1) + ": unclosed fence");
            Block block = new Block(info, body.toString(), start + 1, node);
            if (tokensFileNext) {
                tokensFile = block.text();
                tokensFileNext = false;
            } else {
                blocks.add(block);
            }
        }
        return new ApiDoc(markdown, examples(blocks), tokensFile);
    }

    /** Pairs every curl block with the answer block after it; a curl without one, or an orphan answer, is an error. */
    private static List<Example> examples(List<Block> blocks) {
        List<Example> examples = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            Block b = blocks.get(i);
            if (b.info().equals("http") && (i == 0 || !isCurl(blocks.get(i - 1))))
                throw new IllegalArgumentException("api.md line " + b.line() + ": an answer block with no curl block before it");
            if (!isCurl(b)) continue;
            if (i + 1 == blocks.size() || !blocks.get(i + 1).info().equals("http"))
                throw new IllegalArgumentException("api.md line " + b.line() + ": a curl example needs an ```http answer block right after it");
            String command = withoutComments(b.text());
            examples.add(new Example(b.line(), b.node(), command, Curl.parse(command, b.line()), response(blocks.get(i + 1))));
        }
        return examples;
    }

    private static boolean isCurl(Block b) {
        return b.info().equals("bash") && b.text().contains("curl ");
    }

    /** Leading comment lines explain the command; they are not part of it. */
    private static String withoutComments(String text) {
        StringBuilder out = new StringBuilder();
        boolean started = false;
        for (String l : text.split("\n")) {
            if (!started && (l.isBlank() || l.startsWith("#"))) continue;
            started = true;
            out.append(l).append('\n');
        }
        return out.toString();
    }

    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 (\\d{3}) (.+)");

    private static Response response(Block b) {
        String[] lines = b.text().split("\n", -1);
        Matcher status = STATUS_LINE.matcher(lines[0]);
        if (!status.matches()) throw new IllegalArgumentException("api.md line " + b.line() + ": an answer starts with 'HTTP/1.1 <status> <phrase>'");
        Map<String, String> headers = new LinkedHashMap<>();
        int i = 1;
        for (; i < lines.length && !lines[i].isEmpty(); i++) {
            int colon = lines[i].indexOf(':');
            if (colon < 1) throw new IllegalArgumentException("api.md line " + (b.line() + 1 + i) + ": not a header: " + lines[i]);
            headers.put(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
        }
        StringBuilder body = new StringBuilder();
        for (i++; i < lines.length; i++) body.append(lines[i]).append(i + 1 < lines.length ? "\n" : "");
        return new Response(Integer.parseInt(status.group(1)), status.group(2).trim(), headers, body.toString().strip());
    }

    /** The small part of curl and of the shell the examples use; anything else is refused, not guessed. */
    static final class Curl {
        private Curl() {}

        static Request parse(String command, int line) {
            List<String> words = words(command, line);
            if (words.isEmpty() || !words.get(0).equals("curl"))
                throw new IllegalArgumentException("api.md line " + line + ": an example is one curl command");
            String method = null, url = null, body = null;
            boolean head = false, toFile = false;
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < words.size(); i++) {
                String w = words.get(i);
                switch (w) {
                    case "-X", "--request" -> method = words.get(++i);
                    case "-H", "--header" -> {
                        String h = words.get(++i);
                        int colon = h.indexOf(':');
                        if (colon < 1) throw new IllegalArgumentException("api.md line " + line + ": bad header " + h);
                        headers.put(h.substring(0, colon).trim(), h.substring(colon + 1).trim());
                    }
                    case "-d", "--data", "--data-raw", "--data-binary" -> {
                        body = words.get(++i);
                        if (body.startsWith("@") && !w.equals("--data-raw"))
                            throw new IllegalArgumentException("api.md line " + line + ": examples carry their body inline");
                    }
                    case "-o", "--output" -> {
                        i++;
                        toFile = true;
                    }
                    case "-D", "--dump-header" -> {
                        if (!words.get(++i).equals("-")) throw new IllegalArgumentException("api.md line " + line + ": only -D - is understood");
                    }
                    case "--head" -> head = true;
                    case "--silent", "--include", "--show-error" -> {}
                    default -> {
                        if (w.matches("-[sSiI]+")) { // -s, -i, -si, -I …: only -I changes the request
                            head |= w.contains("I");
                            continue;
                        }
                        if (w.startsWith("-")) throw new IllegalArgumentException("api.md line " + line + ": curl option " + w + " is not understood");
                        if (url != null) throw new IllegalArgumentException("api.md line " + line + ": two URLs");
                        url = w;
                    }
                }
            }
            if (url == null || !url.startsWith(DOC_BASE_URL + "/"))
                throw new IllegalArgumentException("api.md line " + line + ": examples call " + DOC_BASE_URL + "/…");
            if (method == null) method = head ? "HEAD" : body != null ? "POST" : "GET";
            // What curl adds on its own: a body without a content type is sent as a form.
            if (body != null && headers.keySet().stream().noneMatch(h -> h.equalsIgnoreCase("content-type")))
                headers.put("Content-Type", "application/x-www-form-urlencoded");
            return new Request(method, url.substring(DOC_BASE_URL.length()), headers, body, toFile);
        }

        /** Splits a command the way a POSIX shell would, for quotes and line continuations; no expansions. */
        static List<String> words(String command, int line) {
            List<String> words = new ArrayList<>();
            StringBuilder word = null;
            for (int i = 0; i < command.length(); i++) {
                char c = command.charAt(i);
                if (c == '\'') {
                    int end = command.indexOf('\'', i + 1);
                    if (end < 0) throw new IllegalArgumentException("api.md line " + line + ": unclosed quote");
                    word = (word == null ? new StringBuilder() : word).append(command, i + 1, end);
                    i = end;
                } else if (c == '"') {
                    word = word == null ? new StringBuilder() : word;
                    for (i++; i < command.length() && command.charAt(i) != '"'; i++) {
                        char d = command.charAt(i);
                        if (d == '$' || d == '`') throw new IllegalArgumentException("api.md line " + line + ": no expansions in examples");
                        if (d == '\\' && i + 1 < command.length() && "\"\\$`".indexOf(command.charAt(i + 1)) >= 0) d = command.charAt(++i);
                        word.append(d);
                    }
                } else if (c == '\\' && i + 1 < command.length()) {
                    char next = command.charAt(++i);
                    if (next != '\n') word = (word == null ? new StringBuilder() : word).append(next);
                } else if (Character.isWhitespace(c)) {
                    if (word != null) words.add(word.toString());
                    word = null;
                } else if ("$`|;&<>()".indexOf(c) >= 0) {
                    throw new IllegalArgumentException("api.md line " + line + ": unquoted '" + c + "' in an example");
                } else {
                    word = (word == null ? new StringBuilder() : word).append(c);
                }
            }
            if (word != null) words.add(word.toString());
            return words;
        }
    }

    /**
     * Values that differ from run to run are written {@code <name>} in an answer: a JSON string that
     * is exactly one placeholder stands for a value of that kind (a number for {@code <integer>}),
     * and a placeholder inside a string, a header or a text line stands for that part of it.
     */
    static final Map<String, String> PLACEHOLDERS = Map.of(
            "timestamp", "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?\\+00:00",
            "integer", "\\d+",
            "number", "-?\\d+(?:\\.\\d+)?(?:E-?\\d+)?",
            "uuid", "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "text", "[^\"]*");

    private static final Pattern PLACEHOLDER = Pattern.compile("<([a-z]+)>");

    /** The documented text as a pattern: placeholders as their kind, everything else literally. */
    static Pattern pattern(String documented) {
        StringBuilder regex = new StringBuilder();
        Matcher m = PLACEHOLDER.matcher(documented);
        int last = 0;
        while (m.find()) {
            String kind = PLACEHOLDERS.get(m.group(1));
            if (kind == null) continue; // not a placeholder: `<key>` in a metrics label is text
            regex.append(Pattern.quote(documented.substring(last, m.start()))).append(kind);
            last = m.end();
        }
        regex.append(Pattern.quote(documented.substring(last)));
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    /** The placeholder kind when {@code documented} is exactly one placeholder, else null. */
    static String wholePlaceholder(String documented) {
        Matcher m = PLACEHOLDER.matcher(documented);
        return m.matches() && PLACEHOLDERS.containsKey(m.group(1)) ? m.group(1) : null;
    }
}
