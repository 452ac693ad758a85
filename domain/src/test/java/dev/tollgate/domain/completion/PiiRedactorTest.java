package dev.tollgate.domain.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PiiRedactorTest {

    private final PiiRedactor redact = new PiiRedactor();

    @Test
    void personalDataIsReplaced() {
        assertEquals("Mail [email] or [email] today",
                redact.apply("Mail jane.doe+x@example.co.uk or J_D@mail-server.example.org today"));
        assertEquals("Card [card], and [card]",
                redact.apply("Card 4111 1111 1111 1111, and 5500-0000-0000-0004"));
        assertEquals("IBAN [iban].", redact.apply("IBAN DE89 3704 0044 0532 0130 00."));
        assertEquals("SSN [ssn]", redact.apply("SSN 123-45-6789"));
        assertEquals("Call [phone] or [phone] or [phone]",
                redact.apply("Call +1 (415) 555-0132 or 020 7946 0958 or +44 20 7946 0958"));
    }

    @Test
    void personalDataWrittenOtherWaysIsReplacedToo() {
        assertEquals("pay with [card] please", redact.apply("pay with 4111.1111.1111.1111 please"));
        assertEquals("[card] and [card]", redact.apply("4111  1111  1111  1111 and 4111/1111/1111/1111"));
        assertEquals("call [phone] please", redact.apply("call +33 6 12 34 56 78 please"));
        assertEquals("[phone] or [phone]", redact.apply("+31 6 12345678 or 030 / 1234567"));
        assertEquals("[iban] and [iban]", redact.apply("de89 3704 0044 0532 0130 00 and DE89-3704-0044-0532-0130-00"));
        assertEquals("write to [email]!", redact.apply("write to jörg.müller@beispiel.de!"));
        // Inside tool-call arguments (JSON text in a JSON string) an escape is still an escape after one decoding.
        assertEquals("{\"email\":\"[email]\"}", redact.apply("{\"email\":\"gina\\u0040example.com\"}"));
        assertEquals("say \\u0022hi\\u0022", redact.apply("say \\u0022hi\\u0022"), "no PII: the text is kept");
    }

    @Test
    void invisibleCharactersDoNotHidePersonalData() {
        assertEquals("mail [email]", redact.apply("mail john\u200b@example.com"), "zero-width space");
        assertEquals("mail [email]", redact.apply("mail john@example\u200d.com"), "zero-width joiner");
        assertEquals("mail [email]", redact.apply("mail john\u00ad.doe@example.com"), "soft hyphen: none of it kept");
        assertEquals("card [card]", redact.apply("card 4111\u200b1111\u200b1111\u200b1111"));
        assertEquals("card [card]", redact.apply("card 4111\u20601111\u20601111\u20601111"), "word joiners");
        assertEquals("card [card]", redact.apply("card 4111\u00ad1111\u00ad1111\u00ad1111"));
        assertEquals("iban [iban]", redact.apply("iban DE89\u200b3704\u200b0044\u200b0532\u200b0130\u200b00"));
        assertEquals("ssn [ssn]", redact.apply("ssn 078\u200b-05-1120"));
        assertEquals("call [phone]", redact.apply("call +1415\u200b555\u200b2671"));
        assertEquals("family \uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67", redact.apply(
                "family \uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67"), "no PII: emoji sequences stay");
    }

    @Test
    void numbersSplitAcrossLinesTabsOrSpacedDashesAreReplaced() {
        for (String card : List.of("4111\n1111\n1111\n1111", "4111\r\n1111\r\n1111\r\n1111",
                "4111\t1111\t1111\t1111", "4111 1111\n1111 1111", "4111 - 1111 - 1111 - 1111")) {
            assertEquals("pay [card] now", redact.apply("pay " + card + " now"), card);
        }
        for (String iban : List.of("DE89.3704.0044.0532.0130.00", "DE 89 370400 440532 013000",
                "DE89 3704\n0044 0532 0130 00")) {
            assertEquals("to [iban] now", redact.apply("to " + iban + " now"), iban);
        }
        for (String phone : List.of("0033612345678", "0014155552671", "00 33 6 12 34 56 78")) {
            assertEquals("call [phone] now", redact.apply("call " + phone + " now"), phone);
        }
    }

    @Test
    void datesTimesAddressesAndThousandsAreNoPhoneNumbers() {
        for (String text : List.of("2024-01-15 10:30:00,123 ERROR db timeout", "2024/01/15 10:30 meeting",
                "15.01.2024 10:30 Uhr", "2024-01-15 1030", "1 000 000 000", "8 045 311 447 people",
                "tables: 12 345 678 901 rows", "host 192.168.100.200 down")) {
            assertEquals(text, redact.apply(text), text);
        }
        assertEquals("call [phone]: ask for Bob", redact.apply("call +1 415 555 2671: ask for Bob"));
        assertEquals("call [phone] or [phone]", redact.apply("call 415 555 2671 or 06 12 34 56 78"));
    }

    @Test
    void phoneNumbersWithoutGroupsAreReplacedWhenAPlusOrTrunkPrefixMarksThem() {
        for (String phone : List.of("+14155552671", "+447700900123", "+33612345678", "+33 612345678",
                "+1 4155552671", "0612345678", "07700900123", "13800138000", "(415)5552671")) {
            assertEquals("x [phone] y", redact.apply("x " + phone + " y"), phone);
        }
        assertEquals("order 4155552671 and 1234567890 and 0.612345678 and v0612345678",
                redact.apply("order 4155552671 and 1234567890 and 0.612345678 and v0612345678"),
                "a run of digits without a plus or trunk prefix, a decimal and a word stay");
    }

    @Test
    void personalDataInLookAlikeCharactersIsReplaced() {
        assertEquals("mail [email]", redact.apply("mail ann\uff20example.com"), "fullwidth at sign");
        assertEquals("mail [email]", redact.apply("mail ann&#64;example.com"));
        assertEquals("mail [email]", redact.apply("mail ann&#x40;example.com"));
        assertEquals("card [card]", redact.apply("card 4111\u00a01111\u00a01111\u00a01111"), "no-break spaces");
        assertEquals("call [phone]", redact.apply("call 555\u2013123\u20134567"), "en dashes");
        assertEquals("card [card]", redact.apply("card \uff14\uff11\uff11\uff11\uff11\uff11\uff11\uff11"
                + "\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11"), "fullwidth digits");
        assertEquals("card [card]", redact.apply("card \u0664\u0661\u0661\u0661\u0661\u0661\u0661\u0661"
                + "\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661"), "Arabic-Indic digits");
        String plain = "caf\u00e9 \uff21\uff22 \u2013 nothing personal";
        assertEquals(plain, redact.apply(plain), "without personal data the text is kept as it was written");
    }

    @Test
    void ordinaryNumbersStay() {
        String text = "Order 1234567890123456 costs 1,234.56 USD on 2026-11-25 at 10:30; ISBN 978-3-16-148410-0 "
                + "and version 1.2.3, room 12345, 42 items, year 2026.";
        assertEquals(text, redact.apply(text), "a 16-digit number failing Luhn, dates, amounts stay");
        assertEquals("DE89 3704 0044 0532 0130 01", redact.apply("DE89 3704 0044 0532 0130 01"),
                "a wrong IBAN checksum is no IBAN");
        assertEquals("not an email: a@b, x@y.z1", redact.apply("not an email: a@b, x@y.z1"));
    }

    @Test
    void hostileInputStaysFast() {
        String dots = "a@" + "a.".repeat(100_000) + "!";
        String digits = "1 ".repeat(200_000);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            redact.apply(dots);
            redact.apply(digits);
        });
    }

    @Test
    void messageJsonIsSanitisedLikeItsTextEscapesIncluded() {
        ChatMessage message = new ChatMessage("user", "write to bob@example.com",
                "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"write to bob\\u0040example.com\"}]}");
        ChatRequest request = new ChatRequest(new dev.tollgate.domain.catalog.ModelId("m"), List.of(message), null,
                null, null, null, null, null, null, false, null, null, null, null, null, false)
                .sanitised(redact);
        assertEquals("write to [email]", request.messages().get(0).text());
        assertEquals("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"write to [email]\"}]}",
                request.messages().get(0).json());
    }

    @Test
    void stopSequencesToolsToolChoiceAndResponseFormatAreSanitisedToo() {
        ChatMessage message = new ChatMessage("user", "hi", "{\"role\":\"user\",\"content\":\"hi\"}");
        String tools = "[{\"type\":\"function\",\"function\":{\"name\":\"notify\",\"description\":"
                + "\"Mails ann@example.org\",\"parameters\":{\"type\":\"object\",\"properties\":{\"to\":"
                + "{\"type\":\"string\",\"default\":\"+1 (415) 555-0132\"}}}}}]";
        String toolChoice = "{\"type\":\"function\",\"function\":{\"name\":\"notify\"}}";
        String format = "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"card\",\"schema\":"
                + "{\"type\":\"string\",\"examples\":[\"4111 1111 1111 1111\"]}}}";
        ChatRequest request = new ChatRequest(new dev.tollgate.domain.catalog.ModelId("m"), List.of(message), null,
                null, null, null, null, List.of("END", "SSN 123-45-6789"), null, false, null, format, tools,
                toolChoice, null, false).sanitised(redact);
        assertEquals(List.of("END", "SSN [ssn]"), request.stop());
        assertEquals(tools.replace("ann@example.org", "[email]").replace("+1 (415) 555-0132", "[phone]"),
                request.toolsJson());
        assertEquals(toolChoice, request.toolChoiceJson(), "nothing personal: unchanged");
        assertEquals(format.replace("4111 1111 1111 1111", "[card]"), request.responseFormatJson());
        ChatRequest bare = new ChatRequest(new dev.tollgate.domain.catalog.ModelId("m"), List.of(message), null,
                null, null, null, null, null, null, false, null, null, null, null, null, false).sanitised(redact);
        assertEquals(List.of(), bare.stop());
        assertEquals(null, bare.toolsJson());
        assertEquals(null, bare.responseFormatJson());
        assertEquals("max_tokens", bare.maxTokensField());
        ChatRequest bounded = new ChatRequest(new dev.tollgate.domain.catalog.ModelId("m"), List.of(message), 50,
                null, null, null, null, null, null, false, null, null, null, null, null, false,
                "max_completion_tokens").sanitised(redact);
        assertEquals(50, bounded.maxTokens());
        assertEquals("max_completion_tokens", bounded.maxTokensField(), "a refusal of the bound names it");
    }

    @Test
    void jsonLiteralsKeepTheirEscapesAndBrokenJsonIsRefused() {
        assertEquals("{\"a\":\"x\\\"y\\n\\u0001\",\"n\":5}",
                JsonStrings.mapLiterals("{\"a\":\"x\\\"y\\n\\u0001\",\"n\":5}", s -> s));
        assertThrows(IllegalArgumentException.class, () -> JsonStrings.mapLiterals("{\"a\":\"x", s -> s));
        assertThrows(IllegalArgumentException.class, () -> JsonStrings.mapLiterals("{\"a\":\"\\q\"}", s -> s));
    }
}
