package dev.tollgate.adapter.out.upstream.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tollgate.adapter.out.upstream.common.JsonValues;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Simulator support: the JSON a model answers when the request's {@code response_format} asks for it — an object
 * for {@code json_object}, an instance of the schema for {@code json_schema} — deterministic from the prompt, as
 * the simulator's text is. Schemas are read for the subset structured-output clients send (types, properties and
 * required, enum, const, anyOf/oneOf/allOf, {@code $ref}, array and string lengths, numeric bounds, common
 * formats); other keywords are ignored, and no schema makes it throw.
 */
final class JsonAnswer {

    private static final JsonFactory JSON = JsonFactory.builder().build();
    /** Nesting beyond this answers the minimal value of the schema's type: no schema recurses without end. */
    private static final int MAX_DEPTH = 48;
    /**
     * From this nesting, or this many {@code $ref}s on the way, only what the schema demands is produced (required
     * properties, minItems, the null branch), so that recursive schemas (trees, linked lists) end early.
     */
    private static final int SHALLOW_DEPTH = 8;
    private static final int SHALLOW_REFS = 2;
    /** Values in one answer after which only demanded ones are produced. */
    private static final int VALUE_BUDGET = 5_000;
    /**
     * Values in one answer after which every further value is its type's minimal one and arrays stop growing even
     * below minItems, so that the answer stays bounded: a schema whose required properties all refer back to it
     * ({@code a}, {@code b}, {@code c} each {@code {"$ref": "#"}}) has no finite instance, and would otherwise be
     * answered 3^48 values down to {@link #MAX_DEPTH}.
     */
    private static final int HARD_VALUE_BUDGET = 20_000;
    /** Characters of padding for minLength in one answer: max_tokens cuts far shorter anyway. */
    private static final int CHARACTER_BUDGET = 100_000;
    /** The longest streamed piece: a token of a real tokenizer rarely has more characters. */
    private static final int MAX_PIECE = 8;
    private static final BigDecimal HUNDRED = BigDecimal.valueOf(100);

    private final int seed;
    private final Object root;
    private final boolean strict;
    private int values;
    private int characters;

    private JsonAnswer(int seed, Object root, boolean strict) {
        this.seed = seed;
        this.root = root;
        this.strict = strict;
    }

    /**
     * The JSON text to answer for {@code responseFormatJson} (as {@code ChatRequest} carries it), or null when the
     * format asks for none (absent, {@code text}, or unreadable). {@code text} is the simulator's plain answer,
     * which a {@code json_object} answer carries, as a model's JSON carries what it would have said.
     */
    static String answer(String responseFormatJson, int seed, String text) {
        if (responseFormatJson == null) {
            return null;
        }
        Object format;
        try {
            format = read(responseFormatJson);
        } catch (IOException | RuntimeException e) {
            return null; // the HTTP adapter checked it; text rather than nothing if it ever is not JSON
        }
        if (!(format instanceof Map<?, ?> fields)) {
            return null;
        }
        if ("json_object".equals(fields.get("type"))) {
            return object(text);
        }
        if (!"json_schema".equals(fields.get("type"))) {
            return null;
        }
        if (!(fields.get("json_schema") instanceof Map<?, ?> declared) || declared.get("schema") == null) {
            return object(text); // json_schema without a schema (absent or null): any JSON is an instance
        }
        Object schema = declared.get("schema");
        JsonAnswer answer = new JsonAnswer(seed, schema, Boolean.TRUE.equals(declared.get("strict")));
        try {
            return write(answer.value(schema, 0, 0));
        } catch (IOException | RuntimeException e) {
            // never a failed call for a schema: the minimal value of its type, as an unsure model would answer
            return minimalText(schema);
        }
    }

    /**
     * The arguments of a call to a function whose {@code parameters} schema is given (parsed, as {@link #read} reads
     * it; null when the function declares none): a JSON object, an instance of the schema as for {@code json_schema}
     * ({@code strict} as the function's). Tool arguments are always an object, so a schema that admits no object
     * (or none at all) gets the empty one.
     */
    static String arguments(Object parameters, int seed, boolean strict) {
        if (!(parameters instanceof Map<?, ?>)) {
            return "{}";
        }
        try {
            Object value = new JsonAnswer(seed, parameters, strict).value(parameters, 0, 0);
            return value instanceof Map<?, ?> ? write(value) : "{}";
        } catch (IOException | RuntimeException e) {
            return "{}"; // as for response_format: never a failed call for a schema
        }
    }

    /**
     * The answer cut into the pieces it streams in, each one token: runs of letters or digits (with the space
     * before them) and runs of punctuation, at most {@link #MAX_PIECE} characters — roughly how a tokenizer cuts
     * JSON (brace and quote, a name, quote-colon-quote). A surrogate pair is never split: every piece is valid text.
     */
    static List<String> pieces(String json) {
        List<String> pieces = new ArrayList<>();
        int start = 0;
        for (int i = 1; i < json.length(); i++) {
            char c = json.charAt(i);
            char before = json.charAt(i - 1);
            if (Character.isLowSurrogate(c)) {
                continue;
            }
            boolean word = Character.isLetterOrDigit(c);
            boolean wordBefore = Character.isLetterOrDigit(before);
            boolean spaceStartsWord = c == ' ' && i + 1 < json.length()
                    && Character.isLetterOrDigit(json.charAt(i + 1));
            boolean afterLeadingSpace = before == ' ' && i - 1 == start && word;
            if (i - start >= MAX_PIECE || spaceStartsWord || (word != wordBefore && !afterLeadingSpace)) {
                pieces.add(json.substring(start, i));
                start = i;
            }
        }
        if (start < json.length()) {
            pieces.add(json.substring(start));
        }
        return pieces;
    }

    private static String object(String text) {
        try {
            return write(Map.of("answer", text));
        } catch (IOException e) {
            return "{}";
        }
    }

    /** An instance of {@code schema}, {@code depth} levels and {@code refs} followed references down. */
    private Object value(Object schema, int depth, int refs) {
        values++;
        if (!(schema instanceof Map<?, ?> map)) {
            // true (or anything unreadable) admits every value, false none
            return Boolean.FALSE.equals(schema) ? null : words(2);
        }
        if (depth > MAX_DEPTH || values > HARD_VALUE_BUDGET) {
            return minimal(map);
        }
        if (map.get("$ref") instanceof String pointer) {
            Object target = resolve(pointer);
            return target == null ? minimal(map) : value(target, depth + 1, refs + 1);
        }
        if (map.containsKey("const")) {
            return map.get("const");
        }
        if (map.get("enum") instanceof List<?> options && !options.isEmpty()) {
            return options.get(0);
        }
        boolean shallow = depth >= SHALLOW_DEPTH || refs >= SHALLOW_REFS || values > VALUE_BUDGET;
        for (String combinator : List.of("anyOf", "oneOf")) {
            if (map.get(combinator) instanceof List<?> branches && !branches.isEmpty()) {
                Map<String, Object> merged = without(map, combinator);
                int followed = merge(merged, branch(branches, shallow));
                return value(merged, depth + 1, refs + followed);
            }
        }
        if (map.get("allOf") instanceof List<?> parts && !parts.isEmpty()) {
            Map<String, Object> merged = without(map, "allOf");
            int followed = 0;
            for (Object part : parts) {
                followed = Math.max(followed, merge(merged, part));
            }
            return value(merged, depth + 1, refs + followed);
        }
        return switch (type(map, shallow)) {
            case "object" -> object(map, depth, refs, shallow);
            case "array" -> array(map, depth, refs, shallow);
            case "string" -> string(map);
            case "integer" -> number(map, true);
            case "number" -> number(map, false);
            case "boolean" -> (mix(values) & 1) == 0;
            case "any" -> words(2);
            default -> null;
        };
    }

    /** The first branch, as a model would pick; deep down, a branch that ends the recursion if there is one. */
    private Object branch(List<?> branches, boolean shallow) {
        if (shallow) {
            for (Object branch : branches) {
                if (branch instanceof Map<?, ?> map && "null".equals(map.get("type"))) {
                    return branch;
                }
            }
            for (Object branch : branches) {
                if (branch instanceof Map<?, ?> map && !map.containsKey("$ref")) {
                    return branch;
                }
            }
        }
        return branches.get(0);
    }

    private String type(Map<?, ?> map, boolean shallow) {
        Object type = map.get("type");
        if (type instanceof String name) {
            return shallow && Boolean.TRUE.equals(map.get("nullable")) ? "null" : name;
        }
        if (type instanceof List<?> names) {
            if (names.contains("null") && (shallow || names.stream().noneMatch(n -> n instanceof String
                    && !"null".equals(n)))) {
                return "null";
            }
            for (Object name : names) {
                if (name instanceof String s && !"null".equals(s)) {
                    return s;
                }
            }
        }
        if (map.containsKey("properties") || map.containsKey("required") || map.containsKey("additionalProperties")
                || map.containsKey("minProperties")) {
            return "object";
        }
        if (map.containsKey("items") || map.containsKey("prefixItems") || map.containsKey("minItems")
                || map.containsKey("maxItems")) {
            return "array";
        }
        if (map.containsKey("minimum") || map.containsKey("maximum") || map.containsKey("exclusiveMinimum")
                || map.containsKey("exclusiveMaximum") || map.containsKey("multipleOf")) {
            return "number";
        }
        if (map.containsKey("minLength") || map.containsKey("maxLength") || map.containsKey("format")
                || map.containsKey("pattern")) {
            return "string";
        }
        return "any";
    }

    private Map<String, Object> object(Map<?, ?> map, int depth, int refs, boolean shallow) {
        Map<String, Object> object = new LinkedHashMap<>();
        Map<?, ?> properties = map.get("properties") instanceof Map<?, ?> p ? p : Map.of();
        Set<String> required = strings(map.get("required"));
        for (Map.Entry<?, ?> property : properties.entrySet()) {
            String name = String.valueOf(property.getKey());
            if (strict || !shallow || required.contains(name)) {
                object.put(name, value(property.getValue(), depth + 1, refs));
            }
        }
        Object additional = map.get("additionalProperties");
        Object extra = additional instanceof Map<?, ?> ? additional : true;
        for (String name : required) {
            if (!object.containsKey(name)) {
                object.put(name, value(extra, depth + 1, refs));
            }
        }
        int minProperties = count(map.get("minProperties"), 0);
        for (int n = 1; object.size() < minProperties && !Boolean.FALSE.equals(additional)
                && values < HARD_VALUE_BUDGET; n++) {
            object.putIfAbsent("field" + n, value(extra, depth + 1, refs));
        }
        return object;
    }

    private List<Object> array(Map<?, ?> map, int depth, int refs, boolean shallow) {
        int minItems = count(map.get("minItems"), 0);
        int size = shallow ? minItems : Math.max(1, minItems);
        if (map.containsKey("maxItems")) {
            size = Math.min(size, count(map.get("maxItems"), size));
        }
        // Tuples: 2020-12's prefixItems, or items as an array in the drafts before it
        List<?> prefix = map.get("prefixItems") instanceof List<?> p ? p
                : map.get("items") instanceof List<?> p ? p : List.of();
        String rest = map.get("items") instanceof List<?> ? "additionalItems" : "items";
        Object items = map.containsKey(rest) ? map.get(rest) : Boolean.TRUE;
        if (!shallow && prefix.size() > size) {
            size = Math.min(prefix.size(), count(map.get("maxItems"), prefix.size())); // the whole tuple
        }
        List<Object> array = new ArrayList<>();
        for (int i = 0; i < size && values < HARD_VALUE_BUDGET; i++) {
            array.add(value(i < prefix.size() ? prefix.get(i) : items, depth + 1, refs));
        }
        return array;
    }

    private String string(Map<?, ?> map) {
        if (map.get("format") instanceof String format) {
            String example = switch (format) {
                case "date-time" -> "2025-01-01T12:00:00Z";
                case "date" -> "2025-01-01";
                case "time" -> "12:00:00Z";
                case "duration" -> "PT1H";
                case "email", "idn-email" -> words(1) + "@example.com";
                case "uuid" -> UUID.nameUUIDFromBytes((seed + ":" + values).getBytes(StandardCharsets.UTF_8))
                        .toString();
                case "uri", "iri", "url" -> "https://example.com/" + words(1);
                case "hostname", "idn-hostname" -> "example.com";
                case "ipv4" -> "192.0.2.1";
                case "ipv6" -> "2001:db8::1";
                default -> null;
            };
            if (example != null) {
                return example;
            }
        }
        int minLength = count(map.get("minLength"), 0);
        StringBuilder text = new StringBuilder(words(3));
        while (text.length() < minLength && characters + text.length() < CHARACTER_BUDGET) {
            text.append(' ').append(words(1));
        }
        characters += text.length();
        if (map.containsKey("maxLength")) {
            int maxLength = count(map.get("maxLength"), text.length());
            if (text.length() > maxLength) {
                text.setLength(Math.max(maxLength, minLength));
            }
        }
        return text.toString();
    }

    /**
     * A number within the bounds (inclusive {@code minimum}/{@code maximum}; {@code exclusiveMinimum}/{@code
     * exclusiveMaximum} as numbers, or as draft 4's flags) and a multiple of {@code multipleOf}: one of the
     * candidates between them, picked by the prompt; 0–100 when unbounded.
     */
    private Object number(Map<?, ?> map, boolean integer) {
        BigDecimal low = decimal(map.get("minimum"));
        BigDecimal high = decimal(map.get("maximum"));
        boolean lowExclusive = Boolean.TRUE.equals(map.get("exclusiveMinimum")) && low != null;
        boolean highExclusive = Boolean.TRUE.equals(map.get("exclusiveMaximum")) && high != null;
        BigDecimal exclusiveLow = decimal(map.get("exclusiveMinimum"));
        if (exclusiveLow != null && (low == null || exclusiveLow.compareTo(low) >= 0)) {
            low = exclusiveLow;
            lowExclusive = true;
        }
        BigDecimal exclusiveHigh = decimal(map.get("exclusiveMaximum"));
        if (exclusiveHigh != null && (high == null || exclusiveHigh.compareTo(high) <= 0)) {
            high = exclusiveHigh;
            highExclusive = true;
        }
        if (low == null && high == null) {
            low = BigDecimal.ZERO;
            high = HUNDRED;
        } else if (low == null) {
            low = high.subtract(HUNDRED);
        } else if (high == null) {
            high = low.add(HUNDRED);
        }
        if (high.subtract(low).compareTo(HUNDRED) > 0) {
            // Wide bounds (zod's integers span ±2^53): a model answers small numbers, so pick within 100 of
            // zero, or of the bound nearest to it.
            BigDecimal from = low.signum() <= 0 && high.signum() >= 0 ? BigDecimal.ZERO.max(low)
                    : low.signum() > 0 ? low : high.subtract(HUNDRED);
            lowExclusive &= from.compareTo(low) == 0;
            highExclusive &= from.add(HUNDRED).compareTo(high) >= 0;
            low = from;
            high = from.add(HUNDRED).min(high);
        }
        BigDecimal step = decimal(map.get("multipleOf"));
        if (step == null || step.signum() <= 0 || (integer && step.stripTrailingZeros().scale() > 0)) {
            step = BigDecimal.ONE;
        }
        BigDecimal first = low.divide(step, 0, RoundingMode.CEILING).multiply(step);
        if (lowExclusive && first.compareTo(low) == 0) {
            first = first.add(step);
        }
        BigDecimal last = high.divide(step, 0, RoundingMode.FLOOR).multiply(step);
        if (highExclusive && last.compareTo(high) == 0) {
            last = last.subtract(step);
        }
        BigDecimal chosen;
        if (first.compareTo(last) <= 0) {
            BigInteger candidates = last.subtract(first).divide(step, 0, RoundingMode.FLOOR).toBigInteger()
                    .add(BigInteger.ONE);
            BigInteger pick = BigInteger.valueOf(mix(values) & 0x7fffffffL).mod(candidates);
            chosen = first.add(step.multiply(new BigDecimal(pick)));
        } else if (!integer && !map.containsKey("multipleOf") && low.compareTo(high) < 0) {
            chosen = low.add(high).divide(BigDecimal.valueOf(2)); // no whole number fits: the middle does
        } else {
            chosen = first; // nothing fits the schema; a number of the right kind
        }
        chosen = chosen.stripTrailingZeros();
        return chosen.scale() <= 0 ? chosen.toBigIntegerExact() : chosen;
    }

    /** The schema at a local JSON pointer ({@code #}, {@code #/$defs/x}, {@code #/definitions/x}, …), or null. */
    private Object resolve(String pointer) {
        if (!pointer.startsWith("#")) {
            return null; // a remote schema: nothing to fetch it from
        }
        Object at = root;
        for (String token : pointer.substring(1).split("/", -1)) {
            if (token.isEmpty()) {
                continue;
            }
            String key = token.replace("~1", "/").replace("~0", "~");
            if (at instanceof Map<?, ?> map && map.containsKey(key)) {
                at = map.get(key);
            } else if (at instanceof List<?> list && key.chars().allMatch(Character::isDigit) && key.length() < 9
                    && Integer.parseInt(key) < list.size()) {
                at = list.get(Integer.parseInt(key));
            } else {
                return null;
            }
        }
        return at;
    }

    /**
     * Adds {@code part} (a schema, references followed) to {@code into}: properties and required combine. Answers
     * how many references it followed, which count towards the recursion guard like a {@code $ref} of its own.
     */
    private int merge(Map<String, Object> into, Object part) {
        int hops = 0;
        while (hops < 8 && part instanceof Map<?, ?> map && map.get("$ref") instanceof String pointer) {
            part = resolve(pointer);
            hops++;
        }
        if (!(part instanceof Map<?, ?> map)) {
            return hops;
        }
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            String key = String.valueOf(entry.getKey());
            if ("properties".equals(key) && into.get(key) instanceof Map<?, ?> mine
                    && entry.getValue() instanceof Map<?, ?> theirs) {
                Map<Object, Object> properties = new LinkedHashMap<>(mine);
                properties.putAll(theirs);
                into.put(key, properties);
            } else if ("required".equals(key) && into.get(key) instanceof List<?> mine) {
                Set<String> required = strings(mine);
                required.addAll(strings(entry.getValue()));
                into.put(key, new ArrayList<>(required));
            } else {
                into.put(key, entry.getValue());
            }
        }
        return hops;
    }

    private static Map<String, Object> without(Map<?, ?> map, String key) {
        Map<String, Object> copy = new LinkedHashMap<>();
        map.forEach((k, v) -> copy.put(String.valueOf(k), v));
        copy.remove(key);
        return copy;
    }

    private static String minimalText(Object schema) {
        Object value = minimal(schema);
        return value instanceof Map<?, ?> ? "{}" : value instanceof List<?> ? "[]" : value instanceof String ? "\"\""
                : value == null ? "null" : String.valueOf(value);
    }

    /** The smallest value of the schema's declared type, where nothing better can be worked out. */
    private static Object minimal(Object schema) {
        Object type = schema instanceof Map<?, ?> map ? map.get("type") : null;
        if (type instanceof List<?> types) {
            type = types.isEmpty() ? null : types.get(0);
        }
        if (!(type instanceof String name)) {
            return null;
        }
        return switch (name) {
            case "object" -> Map.of();
            case "array" -> List.of();
            case "string" -> "";
            case "integer", "number" -> BigInteger.ZERO;
            case "boolean" -> false;
            default -> null;
        };
    }

    /** {@code n} of the simulator's words, chosen by the prompt and the value's place in the answer. */
    private String words(int n) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < n; i++) {
            String[] vocabulary = SimulatorModelProvider.WORDS;
            text.append(i == 0 ? "" : " ").append(vocabulary[Math.floorMod(mix(values * 7 + i), vocabulary.length)]);
        }
        return text.toString();
    }

    private int mix(int salt) {
        int h = seed * 0x9E3779B9 + salt * 0x85EBCA6B;
        h ^= h >>> 16;
        h *= 0x7FEB352D;
        return h ^ (h >>> 15);
    }

    private static int count(Object value, int otherwise) {
        BigDecimal number = decimal(value);
        if (number == null || number.signum() < 0) {
            return otherwise;
        }
        return number.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0 ? Integer.MAX_VALUE
                : number.setScale(0, RoundingMode.CEILING).intValue();
    }

    private static BigDecimal decimal(Object value) {
        if (value instanceof BigDecimal decimal) {
            return decimal;
        }
        return value instanceof BigInteger integer ? new BigDecimal(integer) : null;
    }

    private static Set<String> strings(Object value) {
        Set<String> strings = new LinkedHashSet<>();
        if (value instanceof List<?> list) {
            list.stream().filter(String.class::isInstance).map(String.class::cast).forEach(strings::add);
        }
        return strings;
    }

    /** The JSON value of {@code json} as maps, lists, strings, exact numbers, booleans and nulls. */
    static Object read(String json) throws IOException {
        try (JsonParser parser = JSON.createParser(json)) {
            parser.nextToken();
            return JsonValues.read(parser);
        }
    }

    static String write(Object value) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = JSON.createGenerator(out)) {
            JsonValues.write(generator, value);
        }
        return out.toString();
    }
}
