package dev.tollgate.adapter.out.upstream.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tollgate.adapter.out.upstream.common.JsonValues;
import dev.tollgate.adapter.out.upstream.common.ToolCallIds;
import java.io.IOException;
import java.io.StringWriter;

/**
 * Upstream adapter support: what the gateway reads from one chunk of an OpenAI-compatible stream (the JSON of one
 * {@code data:} line) — the first choice's content, reasoning, refusal and tool-call deltas, log probabilities and finish reason, the
 * usage, a reported error — read in one pass over the text with Jackson's streaming parser, everything else skipped
 * unread. A chunk arrives for every few tokens of every answer; building a map tree of each took a third of the
 * gateway's CPU at concurrency 1 (docs/performance.md).
 *
 * @param error           the {@code error} object's {@code message} ({@code "null"} without one), or null when
 *                        the chunk reports no error
 * @param content         the first choice's {@code delta.content}, or null
 * @param reasoning       the first choice's reasoning text — {@code delta.reasoning} (OpenRouter, vLLM) or, without
 *                        it, {@code delta.reasoning_content} (DeepSeek, older vLLM) — or null
 * @param refusal         the first choice's {@code delta.refusal}, or null
 * @param toolCallsJson   the first choice's {@code delta.tool_calls} array as compact JSON, or null
 * @param finishReason    the first choice's {@code finish_reason}, or null
 * @param promptTokens    {@code usage.prompt_tokens}, or -1 when the chunk carries no complete usage
 * @param completionTokens {@code usage.completion_tokens}, or -1 likewise
 * @param logprobsJson    the first choice's {@code logprobs.content} array as compact JSON, or null
 * @param rateLimited     whether the error says the provider is at capacity ({@code code} 429 or 529, or a
 *                        {@code code} or {@code type} naming a rate limit or an overload)
 * @param rejected        whether the error says the request itself was refused ({@code code} 400, 413 or 422, or
 *                        {@code type} {@code invalid_request_error} / {@code BadRequestError})
 */
record OpenAiChunk(String error, String content, String reasoning, String refusal, String toolCallsJson, String finishReason, long promptTokens,
        long completionTokens, String logprobsJson, boolean rateLimited, boolean rejected) {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    boolean hasUsage() {
        return promptTokens >= 0 && completionTokens >= 0;
    }

    /**
     * Which tool call a delta without an {@code index} continues (Gemini's OpenAI endpoint, Ollama and others send
     * none), and which calls have had their first delta: one stream's, kept by its decoder. A chunk is read with a
     * {@link #copy} that records only what the chunk adds, so that reading a chunk costs what the chunk holds, not
     * what the stream has opened so far. The client sees the calls numbered 0, 1, 2, … in the order they opened,
     * whatever the server numbered them: a stream whose calls start at index 1 made the openai SDK's stream helpers
     * throw (an audit; servers that do it exist, LiteLLM #5231).
     */
    static final class ToolCallIndexes {
        /** More distinct calls than this in one answer is no answer a client can use: the stream is unreadable. */
        static final int MOST_CALLS = 1024;

        /** The stream's own state a copy reads through, or null for the stream's own. */
        private final ToolCallIndexes base;
        private int next;
        private int last = -1;
        private String lastId;
        /** The function name the last call's deltas carried, or null while they carried none. */
        private String lastName;
        /** The server's index of each call opened, with the client's (its place in the order of opening). */
        private final java.util.Map<Integer, Integer> opened = new java.util.HashMap<>();
        /** The index of each call by the id its first delta carried. */
        private final java.util.Map<String, Integer> ids = new java.util.HashMap<>();

        ToolCallIndexes() {
            this.base = null;
        }

        private ToolCallIndexes(ToolCallIndexes base) {
            this.base = base;
            this.next = base.next;
            this.last = base.last;
            this.lastId = base.lastId;
            this.lastName = base.lastName;
        }

        /**
         * The server's index of a call: its own, or — without one — the call its id opened, a new call's when it
         * carries an id not seen before, or a function name other than the last call's, or when the last call
         * already has an entry in this delta ({@code inThisDelta}: one array, two calls), else the last call's (some
         * servers repeat the id on every delta, others send it only once). An empty id is no id.
         */
        int of(Object given, Object id, Object name, java.util.Set<Integer> inThisDelta) {
            String idText = id instanceof String text && !text.isEmpty() ? text : null;
            String nameText = name instanceof String text && !text.isEmpty() ? text : null;
            int index = own(given);
            if (index < 0) {
                Integer known = idText != null ? idIndex(idText) : null;
                boolean another = last < 0 || idText != null && !idText.equals(lastId)
                        || nameText != null && lastName != null && !nameText.equals(lastName)
                        || inThisDelta.contains(last);
                index = known != null ? known : another ? next : last;
            }
            if (index != last) {
                lastName = null;
            }
            next = Math.max(next, index + 1);
            last = index;
            if (idText != null) {
                lastId = idText;
            }
            if (nameText != null) {
                lastName = nameText;
            }
            return index;
        }

        /** The client's index of the call the server numbered {@code index} (opened, {@link #opens}). */
        int client(int index) {
            Integer own = opened.get(index);
            return own != null ? own : base.opened.get(index);
        }

        private Integer idIndex(String id) {
            Integer known = ids.get(id);
            return known != null || base == null ? known : base.ids.get(id);
        }

        /**
         * A call's own index: a whole number from 0 to below the largest int, or -1 when it has none that is one. A
         * negative index, a fraction or one beyond an int (which {@code intValue} wrapped round to another call's, or
         * to a negative one) is no index an SDK can put a call at; such a call is placed as one without an index is.
         */
        private static int own(Object given) {
            if (!(given instanceof Number number)) {
                return -1;
            }
            java.math.BigDecimal value;
            try {
                value = given instanceof java.math.BigDecimal decimal ? decimal
                        : new java.math.BigDecimal(number.toString());
            } catch (NumberFormatException notFinite) {
                return -1;
            }
            if (value.signum() < 0 || value.compareTo(INDEX_LIMIT) >= 0 || value.stripTrailingZeros().scale() > 0) {
                return -1;
            }
            return value.intValue();
        }

        private static final java.math.BigDecimal INDEX_LIMIT = java.math.BigDecimal.valueOf(Integer.MAX_VALUE);

        /**
         * Whether this is the first delta of the call at {@code index}: the one that must carry its id and type.
         * The id it carries names the call from then on.
         *
         * @throws IOException past {@link #MOST_CALLS} calls in the stream
         */
        boolean opens(int index, Object id) throws IOException {
            if (base != null && base.opened.containsKey(index) || opened.containsKey(index)) {
                return false;
            }
            int count = opened.size() + (base == null ? 0 : base.opened.size());
            if (count >= MOST_CALLS) {
                throw new IOException("more than " + MOST_CALLS + " tool calls in one answer");
            }
            opened.put(index, count);
            if (id instanceof String text && !text.isEmpty()) {
                ids.putIfAbsent(text, index);
            }
            return true;
        }

        /** A copy to read a chunk with: what is not passed on (another choice, a broken chunk) opens no call. */
        ToolCallIndexes copy() {
            return new ToolCallIndexes(this);
        }

        /** Takes over what the copy the chunk was read with added. */
        void set(ToolCallIndexes copy) {
            next = copy.next;
            last = copy.last;
            lastId = copy.lastId;
            lastName = copy.lastName;
            opened.putAll(copy.opened);
            copy.ids.forEach(ids::putIfAbsent);
        }
    }

    /** Reads one chunk on its own (tool-call deltas without an index each open a call). */
    static OpenAiChunk read(String data) throws IOException {
        return read(data, new ToolCallIndexes());
    }

    /**
     * Reads one chunk; throws on text that is not one JSON object. The stream's tool calls ({@code indexes}) change
     * only with a chunk read whole, and only by the answer's own choice.
     */
    static OpenAiChunk read(String data, ToolCallIndexes indexes) throws IOException {
        try (JsonParser parser = JSON.createParser(data)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("a chunk is a JSON object");
            }
            Builder chunk = new Builder(indexes);
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "error" -> chunk.error(parser, value);
                    case "usage" -> chunk.usage(parser, value);
                    case "x_groq" -> chunk.groq(parser, value); // Groq's usage, before it sent the standard one
                    case "choices" -> chunk.choices(parser, value);
                    default -> parser.skipChildren();
                }
            }
            if (parser.currentToken() != JsonToken.END_OBJECT || parser.nextToken() != null) {
                throw new IOException("text after the chunk's object");
            }
            chunk.commitToolCalls();
            return chunk.build();
        }
    }

    private static final class Builder {
        /** The stream's calls so far: changed only once the chunk is read whole ({@link #commitToolCalls}). */
        private final ToolCallIndexes indexes;
        /**
         * The calls as this chunk's answer's tool calls change them, or null while it has none: a choice other than
         * the answer's, tool calls that later ones in the chunk replace, or a chunk that turns out broken must not open
         * a call, or the answer's own first delta of it would be sent without its id and type.
         */
        private ToolCallIndexes reading;
        private String error;
        private String content;
        private String reasoning;
        private String reasoningContent;
        private String refusal;
        private String toolCallsJson;
        private String finishReason;
        private long promptTokens = -1;
        private long completionTokens = -1;
        private String logprobsJson;
        private boolean rateLimited;
        private boolean rejected;

        Builder(ToolCallIndexes indexes) {
            this.indexes = indexes;
        }

        void error(JsonParser parser, JsonToken value) throws IOException {
            if (value == JsonToken.VALUE_STRING) {
                // Hugging Face TGI's shape: {"error": "…", "error_type": "generation"}.
                error = parser.getText();
                return;
            }
            if (value != JsonToken.START_OBJECT) {
                parser.skipChildren();
                return;
            }
            error = "null";
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken token = parser.nextToken();
                if (field.equals("message") && token.isScalarValue()) {
                    error = parser.getText();
                } else if ((field.equals("code") || field.equals("type")) && token.isScalarValue()) {
                    String said = parser.getText().toLowerCase(java.util.Locale.ROOT);
                    rateLimited |= said.equals("429") || said.equals("529") || said.contains("rate_limit")
                            || said.contains("ratelimit") || said.contains("overloaded");
                    rejected |= said.equals("400") || said.equals("413") || said.equals("422")
                            || said.equals("invalid_request_error") || said.equals("badrequesterror");
                } else {
                    parser.skipChildren();
                }
            }
        }

        void usage(JsonParser parser, JsonToken value) throws IOException {
            if (value != JsonToken.START_OBJECT) {
                parser.skipChildren();
                return;
            }
            long prompt = -1;
            long completion = -1;
            long total = -1;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken token = parser.nextToken();
                if (token.isNumeric() && field.equals("prompt_tokens")) {
                    prompt = count(parser, token);
                } else if (token.isNumeric() && field.equals("completion_tokens")) {
                    completion = count(parser, token);
                } else if (token.isNumeric() && field.equals("total_tokens")) {
                    total = count(parser, token);
                } else {
                    parser.skipChildren();
                }
            }
            if (prompt >= 0 && completion >= 0) {
                promptTokens = prompt;
                // Servers in front of Gemini leave reasoning out of completion_tokens but count it in total_tokens:
                // what the provider bills is the larger (docs/decisions.md).
                completionTokens = total - prompt > completion ? total - prompt : completion;
            }
        }

        /**
         * A token count as the provider wrote it ({@link JsonValues#count}: too large to be one is the largest). A
         * number whose exponent alone is beyond a decimal's ({@code 1e99999999999}) counts the same way, by its signs:
         * the largest count, none below one, -1 (no count) when negative.
         */
        private static long count(JsonParser parser, JsonToken token) throws IOException {
            if (token == JsonToken.VALUE_NUMBER_INT) {
                return JsonValues.count(parser.getBigIntegerValue());
            }
            try {
                return JsonValues.count(parser.getDecimalValue());
            } catch (NumberFormatException beyondAnyDecimal) {
                String text = parser.getText();
                if (zero(text)) {
                    return 0; // 0e99999999999 is still none
                }
                return text.startsWith("-") ? -1 : text.contains("e-") || text.contains("E-") ? 0 : Long.MAX_VALUE;
            }
        }

        /** Whether a JSON number's digits before its exponent are all zeros. */
        private static boolean zero(String number) {
            for (int i = 0; i < number.length(); i++) {
                char c = number.charAt(i);
                if (c == 'e' || c == 'E') {
                    return true;
                }
                if (c != '0' && c != '-' && c != '.') {
                    return false;
                }
            }
            return true;
        }

        void groq(JsonParser parser, JsonToken value) throws IOException {
            if (value != JsonToken.START_OBJECT) {
                parser.skipChildren();
                return;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken token = parser.nextToken();
                if (field.equals("usage") && promptTokens < 0) {
                    usage(parser, token);
                } else {
                    parser.skipChildren();
                }
            }
        }

        void choices(JsonParser parser, JsonToken value) throws IOException {
            if (value != JsonToken.START_ARRAY) {
                parser.skipChildren();
                return;
            }
            JsonToken element;
            while ((element = parser.nextToken()) != JsonToken.END_ARRAY) {
                if (element == JsonToken.START_OBJECT) {
                    choice(parser);
                } else {
                    parser.skipChildren();
                }
            }
        }

        /**
         * One choice; only the first (index 0, or no index) is the answer — the gateway asks for one ({@code n} is
         * 1), so another choice a provider sends anyway is not mixed into it.
         */
        private void choice(JsonParser parser) throws IOException {
            String[] before = {content, toolCallsJson, finishReason, logprobsJson, reasoning, reasoningContent, refusal};
            ToolCallIndexes callsBefore = reading;
            long index = 0;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken token = parser.nextToken();
                if (field.equals("index") && token.isNumeric()) {
                    index = parser.getValueAsLong();
                } else if (field.equals("delta") && token == JsonToken.START_OBJECT) {
                    delta(parser);
                } else if (field.equals("finish_reason") && token == JsonToken.VALUE_STRING) {
                    finishReason = parser.getText();
                } else if (field.equals("logprobs") && token == JsonToken.START_OBJECT) {
                    logprobs(parser);
                } else {
                    parser.skipChildren();
                }
            }
            if (index != 0) {
                content = before[0];
                toolCallsJson = before[1];
                finishReason = before[2];
                logprobsJson = before[3];
                reasoning = before[4];
                reasoningContent = before[5];
                refusal = before[6];
                reading = callsBefore;
            }
        }

        /** The chunk was read whole: the calls its answer opened count for the rest of the stream. */
        void commitToolCalls() {
            if (reading != null) {
                indexes.set(reading);
            }
        }

        private void logprobs(JsonParser parser) throws IOException {
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken token = parser.nextToken();
                if (field.equals("content") && token == JsonToken.START_ARRAY) {
                    logprobsJson = copy(parser);
                } else {
                    parser.skipChildren();
                }
            }
        }

        private static String copy(JsonParser parser) throws IOException {
            StringWriter copy = new StringWriter();
            try (JsonGenerator generator = JSON.createGenerator(copy)) {
                generator.copyCurrentStructure(parser);
            }
            return copy.toString();
        }

        private void delta(JsonParser parser) throws IOException {
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken token = parser.nextToken();
                if (field.equals("content") && token == JsonToken.VALUE_STRING) {
                    content = parser.getText();
                } else if (field.equals("reasoning") && token == JsonToken.VALUE_STRING) {
                    reasoning = parser.getText();
                } else if (field.equals("reasoning_content") && token == JsonToken.VALUE_STRING) {
                    reasoningContent = parser.getText();
                } else if (field.equals("refusal") && token == JsonToken.VALUE_STRING) {
                    refusal = parser.getText();
                } else if (field.equals("tool_calls") && token == JsonToken.START_ARRAY) {
                    toolCallsJson = toolCalls(parser);
                } else {
                    parser.skipChildren();
                }
            }
        }

        /**
         * Tool-call deltas in the shape the SDKs parse: each with its {@code index} (given one when the server sent
         * none, {@link ToolCallIndexes}), and without members that are null (a continuation delta of some servers
         * repeats {@code "id": null, "function": {"name": null}}, which @openrouter/sdk refuses). A call's first
         * delta has a string {@code id} (one made up if the server sent none: the SDKs refuse a call without one and
         * the client's answer to it names it) and {@code "type": "function"}; a function's {@code name} is a string
         * or left out, its {@code arguments} a string — JSON text for a server that sent them as an object. What
         * else a server sends with a call (Gemini's {@code extra_content}) is passed on.
         */
        private String toolCalls(JsonParser parser) throws IOException {
            // The last tool_calls of the answer's choice are its delta (as its content is), so they alone count:
            // read from the stream's calls so far, not from those of another tool_calls (a repeated member or choice).
            reading = indexes.copy();
            java.util.Set<Integer> inThisDelta = new java.util.HashSet<>();
            StringWriter out = new StringWriter();
            try (JsonGenerator generator = JSON.createGenerator(out)) {
                generator.writeStartArray();
                JsonToken element;
                while ((element = parser.nextToken()) != JsonToken.END_ARRAY) {
                    if (element != JsonToken.START_OBJECT) {
                        parser.skipChildren();
                        continue;
                    }
                    @SuppressWarnings("unchecked")
                    java.util.Map<String, Object> call = (java.util.Map<String, Object>) withoutNulls(
                            JsonValues.read(parser));
                    Object name = call.get("function") instanceof java.util.Map<?, ?> f ? f.get("name") : null;
                    int index = reading.of(call.remove("index"), call.get("id"), name, inThisDelta);
                    inThisDelta.add(index);
                    boolean first = reading.opens(index, call.get("id"));
                    java.util.Map<String, Object> shaped = new java.util.LinkedHashMap<>();
                    shaped.put("index", java.math.BigInteger.valueOf(reading.client(index)));
                    Object id = call.remove("id");
                    if (id instanceof String text && !text.isEmpty()) {
                        shaped.put("id", id);
                    } else if (first) {
                        shaped.put("id", ToolCallIds.generated());
                    }
                    if (call.remove("type") != null || first) {
                        shaped.put("type", "function");
                    }
                    if (call.remove("function") instanceof java.util.Map<?, ?> function) {
                        shaped.put("function", function(function));
                    }
                    shaped.putAll(call);
                    JsonValues.write(generator, shaped);
                }
                generator.writeEndArray();
            }
            return out.toString();
        }

        /** A call's function with a string name (or none) and string arguments (or none). */
        private static java.util.Map<String, Object> function(java.util.Map<?, ?> given) throws IOException {
            java.util.Map<String, Object> function = new java.util.LinkedHashMap<>();
            given.forEach((member, value) -> function.put(member.toString(), value));
            if (!(function.get("name") instanceof String)) {
                function.remove("name");
            }
            Object arguments = function.get("arguments");
            if (arguments instanceof java.util.Map<?, ?> || arguments instanceof java.util.List<?>) {
                StringWriter text = new StringWriter();
                try (JsonGenerator generator = JSON.createGenerator(text)) {
                    JsonValues.write(generator, arguments);
                }
                function.put("arguments", text.toString());
            } else if (!(arguments instanceof String)) {
                function.remove("arguments");
            }
            return function;
        }

        /** A value without the members and items that are null (at every depth). */
        private static Object withoutNulls(Object value) {
            if (value instanceof java.util.Map<?, ?> map) {
                java.util.Map<String, Object> kept = new java.util.LinkedHashMap<>();
                map.forEach((name, member) -> {
                    if (member != null) {
                        kept.put(name.toString(), withoutNulls(member));
                    }
                });
                return kept;
            }
            return value instanceof java.util.List<?> list ? list.stream().map(Builder::withoutNulls).toList()
                    : value;
        }

        OpenAiChunk build() {
            // A server that sends both names sends the same text twice: one is the answer's.
            return new OpenAiChunk(error, content, reasoning != null ? reasoning : reasoningContent, refusal,
                    toolCallsJson, finishReason, promptTokens, completionTokens,
                    logprobsJson, rateLimited, rejected);
        }
    }
}
