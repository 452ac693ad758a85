package dev.tollgate.domain.completion;

import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * Rewrites the string literals of a JSON text, leaving its structure alone: each literal is decoded (escapes
 * included, so {@code \u0040} is an {@code @}), passed through the function and encoded again. Used to sanitise a
 * message's JSON the same way as its text, without a JSON library in the domain.
 */
public final class JsonStrings {

    private JsonStrings() {
    }

    /** @throws IllegalArgumentException when a string literal is not terminated or has a broken escape */
    public static String mapLiterals(String json, UnaryOperator<String> function) {
        StringBuilder out = new StringBuilder(json.length() + 16);
        int i = 0;
        while (i < json.length()) {
            char c = json.charAt(i);
            if (c != '"') {
                out.append(c);
                i++;
                continue;
            }
            StringBuilder literal = new StringBuilder();
            i = decode(json, i, literal);
            encode(function.apply(literal.toString()), out);
        }
        return out.toString();
    }

    /**
     * Like {@link #mapLiterals(String, UnaryOperator)}, telling the function which member each literal is the value
     * of: its name, or null for a member's name, an array's element or a lone string.
     *
     * @throws IllegalArgumentException when a string literal is not terminated or has a broken escape
     */
    public static String mapMemberLiterals(String json, BiFunction<String, String, String> function) {
        StringBuilder out = new StringBuilder(json.length() + 16);
        scan(json, function, out);
        return out.toString();
    }

    /**
     * The decoded string values of the members named one of {@code names}, at any depth, joined as they come (so the
     * pieces of a tool call's arguments streamed in many deltas join into the arguments): the text of a tool call
     * ({@code name}, {@code arguments}) without the JSON around it.
     *
     * @throws IllegalArgumentException when a string literal is not terminated or has a broken escape
     */
    public static String memberValues(String json, Set<String> names) {
        StringBuilder values = new StringBuilder();
        scan(json, (member, literal) -> {
            if (member != null && names.contains(member)) {
                values.append(literal);
            }
            return literal;
        }, null);
        return values.toString();
    }

    /**
     * Walks the literals of a JSON text, telling {@code function} which member each is the value of (null for a
     * member's name, an array's element, a lone string); writes the text with each literal replaced by what the
     * function returns to {@code out}, unless it is null.
     */
    private static void scan(String json, BiFunction<String, String, String> function, StringBuilder out) {
        String member = null; // the name of the member whose value comes next
        int i = 0;
        while (i < json.length()) {
            char c = json.charAt(i);
            if (c != '"') {
                if (c != ':' && !Character.isWhitespace(c)) {
                    member = null; // a value that is no string (number, object, array…), or the next element
                }
                if (out != null) {
                    out.append(c);
                }
                i++;
                continue;
            }
            StringBuilder literal = new StringBuilder();
            i = decode(json, i, literal);
            int next = i;
            while (next < json.length() && Character.isWhitespace(json.charAt(next))) {
                next++;
            }
            boolean name = next < json.length() && json.charAt(next) == ':';
            String mapped = function.apply(name ? null : member, literal.toString());
            if (out != null) {
                encode(mapped, out);
            }
            member = name ? literal.toString() : null;
        }
    }

    /** Decodes the literal starting at the quote at {@code start} into {@code literal}; returns the index after it. */
    private static int decode(String json, int start, StringBuilder literal) {
        int i = start + 1;
        while (i < json.length()) {
            char s = json.charAt(i++);
            if (s == '"') {
                return i;
            }
            if (s != '\\') {
                literal.append(s);
                continue;
            }
            if (i >= json.length()) {
                break;
            }
            char e = json.charAt(i++);
            switch (e) {
                case '"', '\\', '/' -> literal.append(e);
                case 'b' -> literal.append('\b');
                case 'f' -> literal.append('\f');
                case 'n' -> literal.append('\n');
                case 'r' -> literal.append('\r');
                case 't' -> literal.append('\t');
                case 'u' -> {
                    if (i + 4 > json.length()) {
                        throw new IllegalArgumentException("broken \\u escape in JSON");
                    }
                    try {
                        literal.append((char) Integer.parseInt(json.substring(i, i + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw new IllegalArgumentException("broken \\u escape in JSON");
                    }
                    i += 4;
                }
                default -> throw new IllegalArgumentException("unknown escape \\" + e + " in JSON");
            }
        }
        throw new IllegalArgumentException("unterminated string in JSON");
    }

    private static void encode(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
