package io.queenkv.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The command line as a list of tokens that options and positionals are taken from, in any order:
 * {@code --name value}, {@code --name=value}, flags, then what is left as positionals. Everything
 * after {@code --} is positional, so a value starting with {@code -} is written {@code -- -5}; a
 * lone {@code -} (stdin) is positional anyway. {@link #end} refuses whatever was not taken.
 */
final class Args {
    private record Token(String text, boolean literal) {
        boolean positional() {
            return literal || text.equals("-") || !text.startsWith("-");
        }
    }

    private final List<Token> tokens = new ArrayList<>();

    private Args() {}

    static Args of(String... argv) {
        Args args = new Args();
        boolean literal = false;
        for (String s : argv) {
            if (!literal && s.equals("--")) literal = true;
            else args.tokens.add(new Token(s, literal));
        }
        return args;
    }

    /** Takes the value of an option given as {@code name value} or {@code name=value}; empty if absent. */
    Optional<String> value(String name, String... aliases) {
        String found = null;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.literal) continue;
            String matched = matching(t.text, name, aliases);
            if (matched == null) continue;
            String value;
            if (t.text.length() > matched.length()) {
                value = t.text.substring(matched.length() + 1);
                tokens.remove(i);
            } else {
                if (i + 1 >= tokens.size()) throw CliFailure.usage(matched + " needs a value");
                value = tokens.get(i + 1).text;
                tokens.remove(i + 1);
                tokens.remove(i);
            }
            if (found != null) throw CliFailure.usage(matched + " is given more than once");
            found = value;
            i--;
        }
        return Optional.ofNullable(found);
    }

    /** Takes a flag; true if it was given. */
    boolean flag(String name, String... aliases) {
        boolean found = false;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.literal) continue;
            String matched = matching(t.text, name, aliases);
            if (matched == null) continue;
            if (t.text.length() > matched.length()) throw CliFailure.usage(matched + " takes no value");
            tokens.remove(i--);
            found = true;
        }
        return found;
    }

    /** The option names this token gives: {@code name} exactly, or {@code name=…}. */
    private static String matching(String text, String name, String... aliases) {
        if (text.equals(name) || text.startsWith(name + "=")) return name;
        for (String alias : aliases) if (text.equals(alias) || text.startsWith(alias + "=")) return alias;
        return null;
    }

    /** The positionals not taken yet, in order. */
    List<String> positionals() {
        return tokens.stream().filter(Token::positional).map(Token::text).toList();
    }

    /** Takes the next positional, which must be there; {@code label} names it in the error. */
    String take(String label) {
        return takeOptional().orElseThrow(() -> CliFailure.usage("missing " + label));
    }

    Optional<String> takeOptional() {
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).positional()) return Optional.of(tokens.remove(i).text);
        }
        return Optional.empty();
    }

    /** Refuses anything left: an option {@code command} does not know, or an argument too many. */
    void end(String command) {
        for (Token t : tokens) {
            if (!t.positional())
                throw CliFailure.usage("unknown option " + t.text + " for " + command
                        + " (a value that starts with - goes after --; see queen-kv " + command + " --help)");
        }
        if (!tokens.isEmpty()) throw CliFailure.usage("unexpected argument " + tokens.get(0).text + " for " + command);
    }
}
