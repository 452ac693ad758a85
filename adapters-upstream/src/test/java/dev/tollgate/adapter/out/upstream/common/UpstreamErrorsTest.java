package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class UpstreamErrorsTest {

    @Test
    void credentialsAddressesAndHostsAreMaskedTheRestOfTheSentenceStays() {
        String said = UpstreamErrors.mask("Incorrect API key provided: sk-UPSTR****7890. Bearer abc.def "
                + "AKIAIOSFODNN7EXAMPLE at http://10.0.0.5:8000/x, [fe80::1]:8000, 10.1.2.3:99, "
                + "llm-backend.internal.corp:8000 with password=hunter2&x=1 and token a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5");
        for (String secret : new String[] {"sk-UPSTR", "abc.def", "AKIAIOSFODNN7EXAMPLE", "10.0.0.5", "fe80::1",
                "10.1.2.3", "llm-backend", "hunter2", "a1b2c3d4e5f6"}) {
            assertFalse(said.contains(secret), secret + " in: " + said);
        }
        assertTrue(said.startsWith("Incorrect API key provided: [key]. Bearer [masked]"), said);
        assertTrue(said.contains("password=[masked]&x=1"), said);
    }

    @Test
    void whatAClientCanActOnIsLeftAlone() {
        String said = "This model's maximum context length is 8192 tokens; gpt-4o-mini and claude-3.5 were asked";
        assertEquals(said, UpstreamErrors.mask(said));
        // An audit: Anthropic's field paths and Java's class names were masked as host names.
        for (String readable : new String[] {"messages.0.content.1.text: text content blocks must contain "
                + "non-whitespace text", "java.net.ConnectException: Connection refused",
                "io.netty.channel.ConnectTimeoutException: connection timed out",
                "tools.2.custom.input_schema: Field required"}) {
            assertEquals(readable, UpstreamErrors.mask(readable));
        }
        assertEquals("cannot reach [host].", UpstreamErrors.mask("cannot reach api.anthropic.com."));
        assertEquals("at [host], then", UpstreamErrors.mask("at eu-west-1.llm.example.net:443, then"));
    }

    @Test
    void textThatCouldBeSplitManyWaysIsMaskedInOnePassAndALongTextIsCutFirst() {
        // A fuzzing audit: "a-" a thousand times kept the host pattern trying every split of it for 14 seconds,
        // on the event loop. Each of these is read one way now; the assertions say what the masks made of it.
        assertEquals("[token]-", UpstreamErrors.mask("a-".repeat(1000)));
        String labels = "a.".repeat(1500) + "x";
        assertEquals(labels, UpstreamErrors.mask(labels), "no host: its last label is one letter");
        assertEquals("[host]", UpstreamErrors.mask("a-b.".repeat(100) + "com"));
        // More labels than DNS allows overflowed the matcher's stack: the last 126 and the top level are one host.
        assertTrue(UpstreamErrors.mask("a-b.".repeat(900) + "com").endsWith("a-b.[host]"));
        String colons = "[" + ":".repeat(3000);
        assertEquals(colons, UpstreamErrors.mask(colons));
        assertEquals("[key]", UpstreamErrors.mask("sk-" + "x.".repeat(1500) + "x"));
        String words = "see https://internal.example/x " + "word ".repeat(2000);
        String masked = UpstreamErrors.mask(words + "sk-" + "k".repeat(40));
        assertTrue(masked.startsWith("see [url] word word "), masked);
        assertTrue(masked.endsWith("word ..."), "cut at a word's end: " + masked.substring(masked.length() - 20));
        assertTrue(masked.length() < UpstreamErrors.MASKED_AT_MOST + 10, "cut before masking");
        String unbroken = "b".repeat(10_000);
        assertEquals("[token] ...", UpstreamErrors.mask(unbroken), "a cut within one word leaves it a token");
    }

    @Test
    void theProvidersOwnMessageIsTakenFromItsJsonBody() {
        assertEquals("bad tool schema", UpstreamErrors.providerMessage(
                "{\"error\":{\"message\":\"bad tool schema\",\"type\":\"invalid_request_error\"}}"));
        assertEquals("", UpstreamErrors.providerMessage("<html>502</html>"));
        // Other servers' shapes (an audit): TGI, FastAPI (vLLM), Mistral's validation errors.
        assertEquals("Input validation error: top_p must be < 1", UpstreamErrors.providerMessage(
                "{\"error\":\"Input validation error: top_p must be < 1\",\"error_type\":\"validation\"}"));
        assertEquals("Not Found", UpstreamErrors.providerMessage("{\"detail\":\"Not Found\"}"));
        assertEquals("Extra inputs are not permitted", UpstreamErrors.providerMessage("{\"object\":\"error\","
                + "\"message\":{\"detail\":[{\"type\":\"extra_forbidden\",\"loc\":[\"body\",\"stream_options\"],"
                + "\"msg\":\"Extra inputs are not permitted\"}]},\"type\":\"invalid_request_message_error\"}"));
        assertEquals("", UpstreamErrors.providerMessage(null));
        // A plain-text reason is the reason (an audit: it was lost); masked as any other.
        assertEquals("bad request: temperature out of range",
                UpstreamErrors.providerMessage("bad request: temperature out of range\n"));
        assertEquals("", UpstreamErrors.providerMessage("  <!DOCTYPE html><p>Bad Request</p>"));
    }
}
