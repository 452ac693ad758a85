package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.adapter.in.http.common.ApiErrors;
import dev.tollgate.adapter.in.http.common.InvalidRequestException;
import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * HTTP adapter: reads and validates a chat-completion body (§2.3). Every documented field is checked for type
 * and range with a 400 naming it; fields the gateway does not know are ignored, as OpenAI-compatible servers do
 * (SDKs send extras such as {@code parallel_tool_calls} or OpenRouter's routing hints).
 */
public final class ChatRequests {

    private static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool", "function");
    private static final Set<String> TOOL_CHOICES = Set.of("none", "auto", "required");
    private static final Set<String> RESPONSE_FORMATS = Set.of("text", "json_object", "json_schema");
    private static final int MAX_STOP_SEQUENCES = 4;
    /** The media part types OpenAI takes, on user messages only. */
    private static final Set<String> USER_MEDIA = Set.of("image_url", "input_audio", "file");
    private static final Set<String> IMAGE_DETAIL = Set.of("auto", "low", "high");
    /** OpenAI's rule for function (and response schema) names. */
    private static final Pattern FUNCTION_NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

    private ChatRequests() {
    }

    public static ChatRequest parse(JsonObjectBody body, JsonMapper json) {
        if (!body.has("model") || body.isNull("model")) {
            throw new InvalidRequestException("model", "model is required: an id from GET /v1/models");
        }
        String model = body.string("model");
        if (model.isBlank()) {
            throw new InvalidRequestException("model", "model must not be empty");
        }
        ModelId modelId = ModelNotFoundException.requested(model);
        List<ChatMessage> messages = messages(body, json);
        boolean stream = body.has("stream") && !body.isNull("stream") && body.bool("stream");
        if (body.has("stream_options") && !body.isNull("stream_options")) {
            if (!(body.value("stream_options") instanceof Map<?, ?> options)) {
                throw new InvalidRequestException("stream_options", "stream_options must be an object");
            }
            Object includeUsage = options.get("include_usage");
            if (includeUsage != null && !(includeUsage instanceof Boolean)) {
                throw new InvalidRequestException("stream_options.include_usage",
                        "stream_options.include_usage must be a boolean");
            }
        }
        Integer maxTokens = integer(body, "max_tokens", 1, Integer.MAX_VALUE);
        Integer maxCompletionTokens = integer(body, "max_completion_tokens", 1, Integer.MAX_VALUE);
        String maxTokensField = "max_tokens";
        if (maxTokens == null && maxCompletionTokens != null) {
            maxTokens = maxCompletionTokens;
            maxTokensField = "max_completion_tokens";
        }
        if (body.has("n") && !body.isNull("n") && body.integer("n").compareTo(BigDecimal.ONE) != 0) {
            throw new InvalidRequestException("n", "n must be 1 (one choice per request), got "
                    + ApiErrors.shown(body.number("n")));
        }
        boolean logprobs = body.has("logprobs") && !body.isNull("logprobs") && body.bool("logprobs");
        Integer topLogprobs = integer(body, "top_logprobs", 0, 20);
        if (!logprobs) {
            // §2.3: "meaningful only with logprobs: true". Checked for its range, then without effect.
            topLogprobs = null;
        }
        Long seed = null;
        if (body.has("seed") && !body.isNull("seed")) {
            BigDecimal value = body.integer("seed");
            try {
                seed = value.longValueExact();
            } catch (ArithmeticException e) {
                throw new InvalidRequestException("seed", "seed must be a whole number from -2^63 to 2^63 - 1 "
                        + "(a signed 64-bit integer)");
            }
        }
        legacyFunctionsRefused(body);
        String tools = tools(body, json);
        String toolChoice = toolChoice(body, json);
        mandatoryToolsAreDeclared(body);
        Boolean parallelToolCalls = body.has("parallel_tool_calls") && !body.isNull("parallel_tool_calls")
                ? body.bool("parallel_tool_calls") : null;
        if (tools == null) {
            // "none" or "auto" without tools asks for nothing: not sent (OpenAI refuses a tool_choice without
            // tools) and not counted as prompt; nor is parallel_tool_calls.
            toolChoice = null;
            parallelToolCalls = null;
        }
        return new ChatRequest(modelId, messages, maxTokens,
                range(body, "temperature", "0", "2"), range(body, "top_p", "0", "1"),
                range(body, "frequency_penalty", "-2", "2"), range(body, "presence_penalty", "-2", "2"),
                stop(body), seed, logprobs, topLogprobs, responseFormat(body, json), tools,
                toolChoice, optionalString(body, "user"), stream, maxTokensField, parallelToolCalls);
    }

    /**
     * OpenAI's deprecated function calling ({@code functions}, {@code function_call}) is not translated: silently
     * ignored, a forced call would come back as text, so a request that uses it is refused with what to send
     * instead ({@code function_call} "none" or "auto" without functions asks for nothing and passes).
     */
    private static void legacyFunctionsRefused(JsonObjectBody body) {
        if (body.has("functions") && !body.isNull("functions")
                && !(body.value("functions") instanceof List<?> list && list.isEmpty())) {
            throw new InvalidRequestException("functions", "functions (OpenAI's deprecated function calling) is not "
                    + "supported: declare them in tools, as {type: \"function\", function: {name, parameters}}");
        }
        Object call = body.has("function_call") ? body.value("function_call") : null;
        if (call != null && !"none".equals(call) && !"auto".equals(call)) {
            throw new InvalidRequestException("function_call", "function_call (OpenAI's deprecated function calling) "
                    + "is not supported: use tool_choice, e.g. {type: \"function\", function: {name}}");
        }
    }

    /**
     * A tool choice that makes tool use mandatory ({@code required}, or one named function) needs the functions it
     * refers to: without them no answer could honour it ({@code none} and {@code auto} need nothing).
     */
    private static void mandatoryToolsAreDeclared(JsonObjectBody body) {
        Object choice = body.has("tool_choice") ? body.value("tool_choice") : null;
        boolean required = "required".equals(choice);
        String named = choice instanceof Map<?, ?> c && c.get("function") instanceof Map<?, ?> f
                ? (String) f.get("name") : null;
        if (!required && named == null) {
            return;
        }
        List<?> tools = body.has("tools") && body.value("tools") instanceof List<?> list ? list : List.of();
        if (tools.isEmpty()) {
            throw new InvalidRequestException("tool_choice", (required ? "tool_choice \"required\"" : "tool_choice "
                    + "function \"" + named + "\"") + " makes tool use mandatory, but no tools were sent: declare "
                    + "the functions in tools, or use tool_choice \"auto\" or \"none\"");
        }
        if (named != null && tools.stream().noneMatch(t -> t instanceof Map<?, ?> tool
                && tool.get("function") instanceof Map<?, ?> f && named.equals(f.get("name")))) {
            throw new InvalidRequestException("tool_choice", "tool_choice names the function \"" + named
                    + "\", which is not among tools");
        }
    }

    /**
     * Whether a stream is to end with the usage chunk ({@code choices: []}): only when asked for with
     * {@code stream_options.include_usage: true}, as OpenAI does — a client that did not ask may read
     * {@code choices[0]} of every chunk (docs/decisions.md, "Usage in streams"). Checked by {@link #parse} first.
     */
    public static boolean usageRequested(JsonObjectBody body) {
        return body.has("stream_options") && body.value("stream_options") instanceof Map<?, ?> options
                && Boolean.TRUE.equals(options.get("include_usage"));
    }

    private static List<ChatMessage> messages(JsonObjectBody body, JsonMapper json) {
        if (!body.has("messages") || !(body.value("messages") instanceof List<?> list)) {
            throw new InvalidRequestException("messages", "messages is required: a non-empty array of "
                    + "{role, content} objects");
        }
        if (list.isEmpty()) {
            throw new InvalidRequestException("messages", "messages must not be empty");
        }
        List<ChatMessage> messages = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String where = "messages[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> message)) {
                throw new InvalidRequestException(where, where + " must be an object with role and content");
            }
            if (!(message.get("role") instanceof String role) || !ROLES.contains(role)) {
                throw new InvalidRequestException(where + ".role", where + ".role must be one of "
                        + String.join(", ", ROLES.stream().sorted().toList()));
            }
            boolean callsTools = toolCalls(message, role, where);
            participantFields(message, role, where);
            Content content = content(message.get("content"), role, where, callsTools, message.get("refusal"));
            messages.add(new ChatMessage(role, content.text(), write(json, message), extra(message),
                    content.images()));
        }
        return messages;
    }

    /**
     * An assistant turn's {@code tool_calls}, replayed as the model wrote them: a non-empty array of
     * {@code {id, type: "function", function: {name, arguments}}} with {@code arguments} as text (OpenAI's shape).
     * Every provider gets them as sent, or translated (Anthropic's {@code tool_use} blocks), so a malformed one is
     * refused here rather than dropped or mangled on the way. Returns whether the message calls tools.
     */
    private static boolean toolCalls(Map<?, ?> message, String role, String where) {
        Object value = message.get("tool_calls");
        if (value == null) {
            return message.get("function_call") instanceof Map<?, ?> && "assistant".equals(role);
        }
        String field = where + ".tool_calls";
        if (!"assistant".equals(role)) {
            throw new InvalidRequestException(field, field + " is only allowed on assistant messages");
        }
        if (!(value instanceof List<?> calls) || calls.isEmpty()) {
            throw new InvalidRequestException(field, field + " must be a non-empty array of {id, type: \"function\", "
                    + "function: {name, arguments}} (leave it out when the turn calls no tools)");
        }
        for (int c = 0; c < calls.size(); c++) {
            String call = field + "[" + c + "]";
            if (!(calls.get(c) instanceof Map<?, ?> entry)) {
                throw new InvalidRequestException(call, call + " must be an object {id, type: \"function\", "
                        + "function: {name, arguments}}");
            }
            if (!(entry.get("id") instanceof String id) || id.isEmpty()) {
                throw new InvalidRequestException(call + ".id", call + ".id must be a non-empty string (the id the "
                        + "model gave the call, which the tool message's tool_call_id refers to)");
            }
            if (entry.containsKey("type") && !"function".equals(entry.get("type"))) {
                throw new InvalidRequestException(call + ".type", call + ".type must be \"function\"");
            }
            if (!(entry.get("function") instanceof Map<?, ?> function)) {
                throw new InvalidRequestException(call + ".function", call + ".function must be an object "
                        + "{name, arguments}");
            }
            if (!(function.get("name") instanceof String name) || name.isEmpty()) {
                throw new InvalidRequestException(call + ".function.name", call + ".function.name must be a "
                        + "non-empty string");
            }
            if (!(function.get("arguments") instanceof String)) {
                throw new InvalidRequestException(call + ".function.arguments", call + ".function.arguments must be "
                        + "a string: the arguments as JSON text, e.g. \"{\\\"city\\\": \\\"Paris\\\"}\"");
            }
        }
        return true;
    }

    /** The members that tie a message to a participant or a call: {@code name}, and a tool result's call id. */
    private static void participantFields(Map<?, ?> message, String role, String where) {
        Object name = message.get("name");
        if (name != null && !(name instanceof String)) {
            throw new InvalidRequestException(where + ".name", where + ".name must be a string");
        }
        if ("tool".equals(role)) {
            String field = where + ".tool_call_id";
            Object id = message.get("tool_call_id");
            if (id == null) {
                throw new InvalidRequestException(field, field + " is required on a tool message: the id of the "
                        + "assistant's tool call it answers");
            }
            if (!(id instanceof String text) || text.isEmpty()) {
                throw new InvalidRequestException(field, field + " must be a non-empty string (the id of the "
                        + "assistant's tool call it answers), got " + (id instanceof String ? "an empty string"
                        : JsonObjectBody.describe(id)));
            }
        }
        if ("function".equals(role) && (!(name instanceof String n) || n.isEmpty())) {
            throw new InvalidRequestException(where + ".name", where + ".name is required on a function message: "
                    + "the name of the function it answers");
        }
    }

    /** A message's text parts joined, and how many image parts it has. */
    private record Content(String text, int images) {
    }

    /**
     * @param refusal the message's {@code refusal}: an assistant turn replayed as the model wrote it when it
     *                refused ({@code content: null, refusal: "…"}, as this gateway answers it) needs no content
     */
    private static Content content(Object content, String role, String where, boolean hasToolCalls,
            Object refusal) {
        String field = where + ".content";
        if (refusal != null && !(refusal instanceof String && "assistant".equals(role))) {
            throw new InvalidRequestException(where + ".refusal", where + ".refusal "
                    + ("assistant".equals(role) ? "must be a string or null" : "is only allowed on assistant messages"));
        }
        if (content instanceof String s) {
            return new Content(s, 0);
        }
        if (content == null) {
            if (hasToolCalls) {
                return new Content("", 0);
            }
            if (refusal instanceof String r) {
                return new Content(r, 0);
            }
            throw new InvalidRequestException(field, field + " is required (a string or an array of content "
                    + "parts)");
        }
        if (!(content instanceof List<?> parts)) {
            throw new InvalidRequestException(field, field + " must be a string or an array of content parts");
        }
        if (parts.isEmpty()) {
            // Nothing to send: OpenAI refuses it rather than prompting with nothing.
            throw new InvalidRequestException(field, field + " must not be an empty array: send at least one "
                    + "content part, or the text as a string");
        }
        StringBuilder text = new StringBuilder();
        int images = 0;
        for (int i = 0; i < parts.size(); i++) {
            String at = field + "[" + i + "]";
            if (!(parts.get(i) instanceof Map<?, ?> part)) {
                throw new InvalidRequestException(at, at + " must be an object with a type, e.g. "
                        + "{type: \"text\", text}");
            }
            if (!(part.get("type") instanceof String type)) {
                throw new InvalidRequestException(at + ".type", at + ".type is required: a string such as "
                        + "\"text\"");
            }
            partFitsRole(type, role, at);
            if ("text".equals(type)) {
                if (!(part.get("text") instanceof String t)) {
                    throw new InvalidRequestException(at + ".text", at + ".text must be a string: a text part is "
                            + "{type: \"text\", text}");
                }
                text.append(t);
            } else if ("refusal".equals(type)) {
                // An assistant turn replayed as the model wrote it (OpenAI's refusal part).
                if (!(part.get("refusal") instanceof String r)) {
                    throw new InvalidRequestException(at + ".refusal", at + ".refusal must be a string");
                }
                text.append(r);
            } else {
                // image_url: the one other type partFitsRole lets through.
                if (!(part.get("image_url") instanceof Map<?, ?> image)) {
                    throw new InvalidRequestException(at + ".image_url", at + ".image_url must be an object "
                            + "{url, detail?}");
                }
                if (!(image.get("url") instanceof String url) || url.isBlank()) {
                    throw new InvalidRequestException(at + ".image_url.url", at + ".image_url.url must be a "
                            + "non-empty string: the image's URL or a data: URL");
                }
                // OpenAI's three levels (null as if absent); anything else the provider would refuse, after the hold.
                Object detail = image.get("detail");
                if (detail != null && !IMAGE_DETAIL.contains(detail)) {
                    throw new InvalidRequestException(at + ".image_url.detail", at + ".image_url.detail must be "
                            + "\"auto\", \"low\" or \"high\" when given");
                }
                images++;
            }
        }
        return new Content(text.toString(), images);
    }

    /**
     * The part types a role may carry, as OpenAI allows them: media only on user messages (images only, here),
     * a refusal only on an assistant turn, text alone on the others. Beyond that the part is refused rather than
     * sent to a provider that would drop it or fail.
     */
    private static void partFitsRole(String type, String role, String at) {
        boolean user = "user".equals(role);
        boolean assistant = "assistant".equals(role);
        if ("text".equals(type) || user && "image_url".equals(type) || assistant && "refusal".equals(type)) {
            return;
        }
        String part = at + " is a part of type '" + ApiErrors.shown(type, 32) + "'";
        if (user && !"refusal".equals(type)) {
            // Audio, files and the like would go upstream unpriced: what they cost cannot be held.
            throw new InvalidRequestException(at + ".type", part + ", which this gateway does not take: send text "
                    + "or image_url parts");
        }
        String owner = "refusal".equals(type) ? "assistant" : USER_MEDIA.contains(type) ? "user" : null;
        throw new InvalidRequestException(at + ".type", part + (owner == null ? "" : ", which only " + owner
                + " messages carry") + ": " + role + " message parts must be "
                + (user ? "text or image_url" : assistant ? "text or refusal" : "text"));
    }

    /**
     * The texts of a message beyond its role and content that go upstream with it and count as prompt: every string
     * of its other members (a participant name, a tool_call_id, tool calls with their names and arguments).
     */
    private static String extra(Map<?, ?> message) {
        StringBuilder extra = new StringBuilder();
        for (Map.Entry<?, ?> member : message.entrySet()) {
            if (!"role".equals(member.getKey()) && !"content".equals(member.getKey())) {
                strings(member.getValue(), extra);
            }
        }
        return extra.toString();
    }

    private static void strings(Object value, StringBuilder into) {
        if (value instanceof String s) {
            into.append(s).append(' ');
        } else if (value instanceof Map<?, ?> map) {
            map.values().forEach(v -> strings(v, into));
        } else if (value instanceof List<?> list) {
            list.forEach(v -> strings(v, into));
        }
    }

    private static Integer integer(JsonObjectBody body, String field, int min, int max) {
        if (!body.has(field) || body.isNull(field)) {
            return null;
        }
        BigDecimal value = body.integer(field);
        // The token limits have no upper bound of their own here: the model's output cap is checked once the model
        // is known, and names it.
        String wanted = max == Integer.MAX_VALUE ? "an integer of at least " + min
                : "an integer from " + min + " to " + max;
        int parsed;
        try {
            parsed = value.intValueExact();
        } catch (ArithmeticException e) {
            boolean whole = value.stripTrailingZeros().scale() <= 0;
            throw new InvalidRequestException(field, field + " must be " + wanted + ", got "
                    + ApiErrors.shown(value) + (whole && value.signum() > 0 && max == Integer.MAX_VALUE
                    ? " (larger than any model's output limit)" : ""));
        }
        if (parsed < min || parsed > max) {
            throw new InvalidRequestException(field, field + " must be " + wanted + ", got " + ApiErrors.shown(value));
        }
        return parsed;
    }

    private static BigDecimal range(JsonObjectBody body, String field, String min, String max) {
        if (!body.has(field) || body.isNull(field)) {
            return null;
        }
        BigDecimal value = body.number(field);
        if (value.compareTo(new BigDecimal(min)) < 0 || value.compareTo(new BigDecimal(max)) > 0) {
            throw new InvalidRequestException(field, field + " must be from " + min + " to " + max + ", got "
                    + ApiErrors.shown(value));
        }
        return value;
    }

    private static List<String> stop(JsonObjectBody body) {
        if (!body.has("stop") || body.isNull("stop")) {
            return List.of();
        }
        Object value = body.value("stop");
        if (value instanceof String s) {
            return List.of(s);
        }
        if (value instanceof List<?> list && list.size() <= MAX_STOP_SEQUENCES
                && list.stream().allMatch(String.class::isInstance)) {
            return list.stream().map(String.class::cast).toList();
        }
        throw new InvalidRequestException("stop", "stop must be a string or an array of at most "
                + MAX_STOP_SEQUENCES + " strings");
    }

    private static String responseFormat(JsonObjectBody body, JsonMapper json) {
        if (!body.has("response_format") || body.isNull("response_format")) {
            return null;
        }
        if (!(body.value("response_format") instanceof Map<?, ?> format)
                || !(format.get("type") instanceof String type) || !RESPONSE_FORMATS.contains(type)) {
            throw new InvalidRequestException("response_format", "response_format must be an object whose type is "
                    + "text, json_object or json_schema");
        }
        if ("json_schema".equals(type)) {
            jsonSchema(format.get("json_schema"));
        }
        return "text".equals(type) ? null : write(json, format);
    }

    /** OpenAI's {@code json_schema}: {name, schema?, strict?, description?}, the name as a function's is. */
    private static void jsonSchema(Object value) {
        String field = "response_format.json_schema";
        if (!(value instanceof Map<?, ?> schema)) {
            throw new InvalidRequestException(field, field + " is required with type json_schema: an object "
                    + "{name, schema, strict?}");
        }
        if (!(schema.get("name") instanceof String name)) {
            throw new InvalidRequestException(field + ".name", field + ".name is required: 1 to 64 letters, digits, "
                    + "underscores or dashes");
        }
        if (!FUNCTION_NAME.matcher(name).matches()) {
            throw new InvalidRequestException(field + ".name", field + ".name must be 1 to 64 letters, digits, "
                    + "underscores or dashes, got '" + ApiErrors.shown(name, 64) + "'");
        }
        if (schema.get("schema") != null && !(schema.get("schema") instanceof Map<?, ?>)) {
            throw new InvalidRequestException(field + ".schema", field + ".schema must be a JSON Schema object");
        }
        if (schema.get("strict") != null && !(schema.get("strict") instanceof Boolean)) {
            throw new InvalidRequestException(field + ".strict", field + ".strict must be a boolean");
        }
        if (schema.get("description") != null && !(schema.get("description") instanceof String)) {
            throw new InvalidRequestException(field + ".description", field + ".description must be a string");
        }
    }

    private static String tools(JsonObjectBody body, JsonMapper json) {
        if (!body.has("tools") || body.isNull("tools")) {
            return null;
        }
        if (!(body.value("tools") instanceof List<?> tools)) {
            throw new InvalidRequestException("tools", "tools must be an array of function declarations");
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < tools.size(); i++) {
            String at = "tools[" + i + "]";
            if (!(tools.get(i) instanceof Map<?, ?> tool)) {
                throw new InvalidRequestException(at, at + " must be {type: \"function\", function: {name, "
                        + "parameters?, description?}}");
            }
            if (!"function".equals(tool.get("type"))) {
                throw new InvalidRequestException(at + ".type", at + ".type must be \"function\"");
            }
            if (!(tool.get("function") instanceof Map<?, ?> function)) {
                throw new InvalidRequestException(at + ".function", at + ".function must be an object {name, "
                        + "parameters?, description?}");
            }
            String field = at + ".function.";
            if (!(function.get("name") instanceof String name)) {
                throw new InvalidRequestException(field + "name", field + "name is required: 1 to 64 letters, "
                        + "digits, underscores or dashes");
            }
            if (!FUNCTION_NAME.matcher(name).matches()) {
                throw new InvalidRequestException(field + "name", field + "name must be 1 to 64 letters, digits, "
                        + "underscores or dashes, got '" + ApiErrors.shown(name, 64) + "'");
            }
            if (!names.add(name)) {
                throw new InvalidRequestException(field + "name", at + " declares the function '" + name
                        + "' again: function names must be unique");
            }
            if (function.get("parameters") != null && !(function.get("parameters") instanceof Map<?, ?>)) {
                throw new InvalidRequestException(field + "parameters", field + "parameters must be a JSON Schema "
                        + "object");
            }
            if (function.get("description") != null && !(function.get("description") instanceof String)) {
                throw new InvalidRequestException(field + "description", field + "description must be a string");
            }
            if (function.get("strict") != null && !(function.get("strict") instanceof Boolean)) {
                throw new InvalidRequestException(field + "strict", field + "strict must be a boolean");
            }
        }
        return tools.isEmpty() ? null : write(json, tools);
    }

    private static String toolChoice(JsonObjectBody body, JsonMapper json) {
        if (!body.has("tool_choice") || body.isNull("tool_choice")) {
            return null;
        }
        Object value = body.value("tool_choice");
        if (value instanceof String s && TOOL_CHOICES.contains(s)) {
            return write(json, s);
        }
        if (value instanceof Map<?, ?> choice && "function".equals(choice.get("type"))
                && choice.get("function") instanceof Map<?, ?> function && function.get("name") instanceof String) {
            return write(json, choice);
        }
        throw new InvalidRequestException("tool_choice", "tool_choice must be none, auto, required or "
                + "{type: \"function\", function: {name}}");
    }

    private static String optionalString(JsonObjectBody body, String field) {
        return body.has(field) && !body.isNull(field) ? body.string(field) : null;
    }

    private static String write(JsonMapper json, Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (IOException e) {
            throw new InvalidRequestException(null, "cannot re-encode the request: " + e.getMessage());
        }
    }
}
