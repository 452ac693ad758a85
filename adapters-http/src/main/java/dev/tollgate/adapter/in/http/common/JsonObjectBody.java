package dev.tollgate.adapter.in.http.common;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A request body that must be one JSON object, read with Jackson's streaming parser so that absent and
 * {@code null} fields stay distinct (PATCH semantics), numbers stay exact decimals (money never passes through
 * {@code double}), and duplicate fields, trailing data and malformed JSON are refused with a 400.
 */
public final class JsonObjectBody {

    private static final int MAX_NUMBER_LENGTH = 64;
    private static final int MAX_NESTING = 64;
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING)
                    .maxNumberLength(MAX_NUMBER_LENGTH).build())
            .build();

    /** The largest decimal exponent a number may have either way (a double reaches 1e308 and 4.9e-324). */
    static final int MAX_SCALE = 400;

    /** A field's value: {@code null}, a Boolean, a String, a BigDecimal, a Map (object) or a List (array). */
    private final Map<String, Object> fields;

    private JsonObjectBody(Map<String, Object> fields) {
        this.fields = fields;
    }

    /**
     * The JSON object of a request whose body must be declared JSON (§4: {@code Content-Type: application/json} for
     * management bodies and chat completions): a body declared as anything else, or not declared, is a 415 before it
     * is read. Case and parameters do not matter ({@code application/json; charset=utf-8}), except a charset other
     * than UTF-8: JSON is UTF-8 (RFC 8259 §8.1), and a body declared in another is a 415 rather than read as UTF-8
     * anyway (an audit, 2026-11-29: Latin-1 was refused as broken UTF-8, UTF-16 read, an unknown charset ignored).
     */
    public static JsonObjectBody parseDeclared(HttpRequest<?> request, byte[] body) {
        if (body != null && body.length > 0) {
            MediaType type = request.getContentType().orElse(null);
            if (type == null || !MediaType.APPLICATION_JSON_TYPE.matches(type)) {
                throw InvalidRequestException.unsupportedMediaType("Content-Type must be application/json for this "
                        + "request's body, got " + (type == null ? "none"
                        : "'" + ApiErrors.shown(type.toString(), 64) + "'") + ": send the body as JSON with "
                        + "'Content-Type: application/json'");
            }
            String charset = type.getParameters().get("charset").orElse(null);
            if (charset != null && !isUtf8(charset)) {
                throw InvalidRequestException.unsupportedMediaType("The body's charset must be UTF-8, got '"
                        + ApiErrors.shown(charset, 32) + "': JSON is UTF-8 (RFC 8259 §8.1); send it encoded as UTF-8 "
                        + "with 'Content-Type: application/json' or 'application/json; charset=utf-8'");
            }
        }
        return parse(body);
    }

    private static boolean isUtf8(String charset) {
        String name = charset.strip();
        if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
            name = name.substring(1, name.length() - 1);
        }
        return name.equalsIgnoreCase("utf-8") || name.equalsIgnoreCase("utf8");
    }

    public static JsonObjectBody parse(byte[] body) {
        if (body == null || body.length == 0) {
            // Netty drops the Content-Encoding header once it decompressed; a few bytes that are no gzip stream,
            // or a stream cut short, decompress to nothing, with no error to tell them from an empty body.
            throw new InvalidRequestException(null, "Request body is empty, or it was declared compressed "
                    + "(Content-Encoding) and is not a whole compressed stream of that kind (cut short or not "
                    + "compressed: nothing came out of it). Send a JSON object, compressed whole or without a "
                    + "Content-Encoding header");
        }
        requireUtf8(body);
        Map<String, Object> fields = new LinkedHashMap<>();
        try (JsonParser parser = FACTORY.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidRequestException(null, "Request body must be a JSON object");
            }
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                if (fields.containsKey(name)) {
                    throw new InvalidRequestException(name, "Field '" + name + "' appears more than once");
                }
                fields.put(name, readValue(parser, parser.nextToken()));
            }
            if (token != JsonToken.END_OBJECT || parser.nextToken() != null) {
                throw new InvalidRequestException(null, "Request body must be exactly one JSON object");
            }
        } catch (StreamConstraintsException e) {
            throw new InvalidRequestException(null, beyondLimits(e));
        } catch (JsonParseException e) {
            throw new InvalidRequestException(null, malformed(e));
        } catch (IOException e) {
            throw new InvalidRequestException(null, "Unreadable request body: send one JSON object in UTF-8");
        }
        return new JsonObjectBody(Collections.unmodifiableMap(fields));
    }

    /**
     * Refuses a body that is not well-formed UTF-8 (RFC 8259 §8.1). The JSON parser decodes some ill-formed
     * sequences instead of refusing them — an overlong {@code C0 AF} becomes {@code /} — so text a filter in front
     * of the gateway saw as bytes would reach the provider as other characters.
     */
    private static void requireUtf8(byte[] body) {
        int i = 0;
        while (i < body.length && body[i] > 0) {
            i++; // ASCII, the common case, needs no decoder
        }
        if (i == body.length) {
            return;
        }
        for (int j = i; j < body.length; j++) {
            if (body[j] == 0) {
                // No JSON holds a raw NUL (in a string it is \u0000): text in UTF-16 or UTF-32, which the parser
                // would otherwise detect and read.
                throw new InvalidRequestException(null, "The request body is not valid UTF-8 JSON (a NUL byte at "
                        + j + "; UTF-16 or UTF-32?): send JSON encoded as UTF-8");
            }
        }
        java.nio.charset.CharsetDecoder decoder = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(body);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(Math.min(body.length, 8192));
        while (true) {
            java.nio.charset.CoderResult result = decoder.decode(in, out, true);
            if (result.isError()) {
                throw new InvalidRequestException(null, "The request body is not valid UTF-8 (byte " + in.position()
                        + "): send JSON encoded as UTF-8, without overlong or surrogate sequences");
            }
            if (result.isUnderflow()) {
                return;
            }
            out.clear(); // only the check matters, not the characters
        }
    }

    /** Which of the parser's limits the body went past, in the terms of the request rather than of the parser. */
    private static String beyondLimits(StreamConstraintsException e) {
        String limit = String.valueOf(e.getMessage());
        if (limit.startsWith("Name length")) {
            return "A field name in the request body is too long: names are at most "
                    + FACTORY.streamReadConstraints().getMaxNameLength() + " characters";
        }
        if (limit.startsWith("String value length") || limit.startsWith("String length")) {
            return "A string in the request body is too long: strings are at most "
                    + FACTORY.streamReadConstraints().getMaxStringLength() + " characters";
        }
        if (limit.startsWith("Document nesting depth") || limit.contains("nesting")) {
            return "The request body nests objects and arrays more than " + MAX_NESTING + " levels deep";
        }
        // The parser counts the digits before and after the decimal point together, not the sign, the point or
        // the exponent (0. and 64 ones is refused, 1. and 63 ones with e5 is not).
        return "A number in the request body has more than " + MAX_NUMBER_LENGTH + " digits (before and after its "
                + "decimal point together); no value of this API needs that many";
    }

    /**
     * Where the JSON broke and how, for a person: Jackson's own wording names its parser features
     * ({@code JsonReadFeature.ALLOW_…}) and source-location settings, which a client cannot act on.
     */
    static String malformed(JsonParseException e) {
        String reason = String.valueOf(e.getOriginalMessage());
        int line = reason.indexOf('\n');
        if (line >= 0) {
            reason = reason.substring(0, line);
        }
        reason = reason.replaceAll(" *\\(start marker at \\[Source: [^\\]]*\\][^)]*\\)", "")
                .replaceAll(" *\\[Source: [^\\]]*\\]", "")
                .replaceAll(":? *enable `?[A-Za-z.]*Feature\\.[A-Z_]+`? to allow.*", "")
                .replaceAll(" *\\([^()]*Feature[^()]*\\)", "")
                .replaceAll(" *;? *Feature '[A-Z_]+' not enabled.*", "")
                .strip();
        var location = e.getLocation();
        String where = location == null || location.getLineNr() < 1 ? ""
                : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return "Malformed JSON in request body" + where + ": " + ApiErrors.shown(reason, 200)
                + " (send one JSON object: double-quoted names and strings, no comments, no NaN or Infinity)";
    }

    private static Object readValue(JsonParser parser, JsonToken token) throws IOException {
        return switch (token) {
            case VALUE_NULL -> null;
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_STRING -> parser.getText();
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> decimal(parser);
            case START_OBJECT -> {
                Map<String, Object> object = new LinkedHashMap<>();
                JsonToken next;
                while ((next = parser.nextToken()) == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    if (object.containsKey(name)) {
                        // Two readers of one body must never see two values (a check here, another upstream).
                        String path = path(parser.getParsingContext());
                        throw new InvalidRequestException(path, "Field '" + path + "' appears more than once");
                    }
                    object.put(name, readValue(parser, parser.nextToken()));
                }
                yield object;
            }
            case START_ARRAY -> {
                java.util.List<Object> array = new java.util.ArrayList<>();
                JsonToken next;
                while ((next = parser.nextToken()) != JsonToken.END_ARRAY) {
                    array.add(readValue(parser, next));
                }
                yield array;
            }
            default -> throw new InvalidRequestException(null, "Malformed JSON in request body");
        };
    }

    private static BigDecimal decimal(JsonParser parser) throws IOException {
        BigDecimal value;
        try {
            value = parser.getDecimalValue();
        } catch (NumberFormatException | ArithmeticException e) {
            throw outOfRange(parser);
        }
        // A short text can name an enormous number (1e1500000000): written out in full it would be gigabytes.
        // Nothing a request may carry needs more than a double's range, so nothing beyond it is accepted.
        if (value.signum() != 0 && (value.scale() > MAX_SCALE || value.scale() < -MAX_SCALE
                || value.precision() - value.scale() > MAX_SCALE)) {
            throw outOfRange(parser);
        }
        return value;
    }

    /**
     * Where the parser is, in the terms of the API's {@code param} ({@code stream_options.include_usage},
     * {@code messages[0].content}), or null at the top level outside any field.
     */
    static String path(JsonStreamContext context) {
        java.util.ArrayDeque<String> steps = new java.util.ArrayDeque<>();
        for (JsonStreamContext at = context; at != null && !at.inRoot(); at = at.getParent()) {
            if (at.inArray()) {
                steps.push("[" + Math.max(0, at.getCurrentIndex()) + "]");
            } else if (at.getCurrentName() != null) {
                steps.push(at.getParent() != null && at.getParent().inRoot() ? at.getCurrentName()
                        : "." + at.getCurrentName());
            }
        }
        return steps.isEmpty() ? null : String.join("", steps);
    }

    private static InvalidRequestException outOfRange(JsonParser parser) throws IOException {
        String name = path(parser.getParsingContext());
        return new InvalidRequestException(name, (name == null ? "A number" : "'" + name + "'")
                + " is out of range: " + ApiErrors.shown(parser.getText(), 64) + " (numbers must be smaller than 1e"
                + MAX_SCALE + " in magnitude and have at most " + MAX_SCALE + " decimal places)");
    }

    public Set<String> names() {
        return fields.keySet();
    }

    public boolean has(String name) {
        return fields.containsKey(name);
    }

    /** Present with the literal {@code null}. */
    public boolean isNull(String name) {
        return fields.containsKey(name) && fields.get(name) == null;
    }

    public String string(String name) {
        Object value = fields.get(name);
        if (value instanceof String s) {
            return s;
        }
        throw wrongType(name, "a string", value);
    }

    public boolean bool(String name) {
        Object value = fields.get(name);
        if (value instanceof Boolean b) {
            return b;
        }
        throw wrongType(name, "true or false", value);
    }

    /** The raw value (Map, List, String, BigDecimal, Boolean or null) of a present field. */
    public Object value(String name) {
        return fields.get(name);
    }

    public BigDecimal number(String name) {
        Object value = fields.get(name);
        if (value instanceof BigDecimal d) {
            return d;
        }
        throw wrongType(name, "a number", value);
    }

    /** A number field that must hold an integer: of another type, the message says an integer is wanted. */
    public BigDecimal integer(String name) {
        Object value = fields.get(name);
        if (value instanceof BigDecimal d) {
            return d;
        }
        throw wrongType(name, "an integer", value);
    }

    private static InvalidRequestException wrongType(String name, String expected, Object actual) {
        return new InvalidRequestException(name, "'" + name + "' must be " + expected + ", got " + describe(actual));
    }

    /** What kind of JSON value this is ("a string", "an object"…), for a message about a wrong type. */
    public static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Map) {
            return "an object";
        }
        if (value instanceof java.util.List) {
            return "an array";
        }
        if (value instanceof String) {
            return "a string";
        }
        if (value instanceof Boolean) {
            return "a boolean";
        }
        return "a number";
    }
}
