package dev.tollgate.domain.completion;

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
            i++;
            boolean closed = false;
            while (i < json.length()) {
                char s = json.charAt(i++);
                if (s == '"') {
                    closed = true;
                    break;
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
            if (!closed) {
                throw new IllegalArgumentException("unterminated string in JSON");
            }
            encode(function.apply(literal.toString()), out);
        }
        return out.toString();
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
