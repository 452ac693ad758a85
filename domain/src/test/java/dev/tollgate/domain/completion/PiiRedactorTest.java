package dev.tollgate.domain.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PiiRedactorTest {

    private final PiiRedactor redact = new PiiRedactor();

    @Test
    void personalDataIsReplaced() {
        assertEquals("Mail [email] or [email] today",
                redact.apply("Mail jane.doe+x@example.co.uk or J_D@mail-server.example.org today"));
        // An audit: an apostrophe inside a local part left its start behind ("o'[email]").
        assertEquals("Write [email] or '[email]'", redact.apply("Write o'brien@example.com or 'ann@example.org'"));
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
        assertEquals("mail [email] or [email] or [email]", redact.apply(
                "mail \"bob smith\"@example.com or user@[192.168.0.1] or ops@[IPv6:2001:db8::1]"));
        assertEquals("say \"hi\" @ noon, not \"yes\"@", redact.apply("say \"hi\" @ noon, not \"yes\"@"),
                "quotes and an @ that make no address are kept");
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
    void usNumbersWithTwoKindsOfSeparatorAndSsnsWithSpacesOrALabelAreReplaced() {
        for (String phone : List.of("415 555-0132", "212-555 0199", "415/555-0132", "1 212 555-0199",
                "415.555-0132")) {
            assertEquals("call [phone] now", redact.apply("call " + phone + " now"), phone);
        }
        assertEquals("SSN [ssn], [ssn] and ssn: [ssn]",
                redact.apply("SSN 123 45 6789, 078-05-1120 and ssn: 123456789"));
        assertEquals("social security number [ssn]", redact.apply("social security number 219099999"));
        // Two kinds of separator with an exchange of 0 or 1, and numbers no SSN can be, stay.
        String text = "scores 415 155-0132, range 200 100-3000, codes 000-12-3456 666 12 3456 900-12-3456 "
                + "123-00-4567 123 45 0000, order 123456789";
        assertEquals(text, redact.apply(text));
    }

    @Test
    void anAddressUnderATopLevelDomainInItsAsciiFormIsReplaced() {
        assertEquals("write to [email] or [email]",
                redact.apply("write to user@example.xn--p1ai or ivan@xn--80a1acny.xn--p1ai"));
    }

    @Test
    void anIbanThatRunsOnIntoTheWordsAfterItEndsWhereItsChecksumHolds() {
        assertEquals("IBAN [iban] BIC COBA", redact.apply("IBAN DE89 3704 0044 0532 0130 00 BIC COBA"));
        assertEquals("[iban] ab 12", redact.apply("de89 3704 0044 0532 0130 00 ab 12"));
        assertEquals("[iban]\r\nnext line", redact.apply("DE89 3704 0044 0532 0130 00\r\nnext line"));
        assertEquals("GB82 WEST 1234 5698 7654 3", redact.apply("GB82 WEST 1234 5698 7654 3"),
                "no prefix of a candidate that fails mod 97 passes it");
        assertEquals("[iban] 7", redact.apply("GB82 WEST 1234 5698 7654 32 7"), "letters count as two digits");
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

    @ParameterizedTest
    @ValueSource(strings = {"phone: 555 0132", "Phone 5550132", "mobile 5551234567", "my cell is 12 45 67 89 23",
            "Tel. 12 34 56 78", "tel: 555-0132", "call me at 4155552671", "text me on 555.123.4567", "fax #4155552671",
            "phone number: 5551234567", "WhatsApp: 61 412 345 678", "Telefon 1234567", "t\u00e9l\u00e9phone 612345678",
            "Handy: 1761234567", "m\u00f3vil 612345678", "phone no. 5550132", "Phone\u00a0555\u00a00132"})
    void aLabelMarksAnyGroupingOfDigitsAsAPhoneNumber(String labelled) {
        String label = labelled.substring(0, labelled.indexOf(labelled.chars().filter(Character::isDigit)
                .mapToObj(c -> String.valueOf((char) c)).findFirst().orElseThrow()));
        assertEquals(label + "[phone] now", redact.apply(labelled + " now"), labelled);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Tel Aviv 1234567 residents", "hotel 1234567", "cell A1 to 1234567", "SMS code 123456",
            "call me at 10:30", "phone 12 34 56 (six digits)", "telephone poles 12 34", "cellular 12", "fax 2024",
            "the phone 12345 ext", "mobile version 1.2.3.4.5.6.7"})
    void withoutDigitsOfAPhoneRightAfterItsLabelTheTextStays(String text) {
        assertEquals(text, redact.apply(text));
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

    @ParameterizedTest
    @ValueSource(strings = {"Sort these numbers: 12 45 67 89 23", "Years 2019 2020 2021", "Dates 15/01 20/02 25/03",
            "Dates 05/01 20/02 25/03", "Open ports 8080 8443 9090", "zip 94105-1234", "Part number 1234-5678-90",
            "ISBN 0-306-40615-2", "ISBN 978-0-306-40615-7", "Test scores: 85 92 78 90 88",
            "Primes 2 3 5 7 11 13 17 19 23 29 31", "dims: 1920 1080 2560 1440", "see foo@2x.png",
            "icons: logo@3x.webp, banner@2x.JPG", "1 000 000 000", "Numbers: 100 200 3000", "ids 123 456 789 012",
            "pi 3.1415926535 8979", "Lotto 4 8 15 16 23 42 and 4 8 15 16 23 42",
            "order 4000 1234 5678 9012 fails Luhn", "1111 2222 3333 4444 is no issuer's number"})
    void ordinaryTextSurvivesUnchanged(String text) {
        assertEquals(text, redact.apply(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"(415) 555-0132", "415-555-0132", "415.555.0132", "415 555 2671", "1-800-555-0199",
            "1 (415) 555-0132", "(415)555-0132", "+1 (415) 555-0132", "020 7946 0958", "07700 900123",
            "+44 (0)20 7946 0958", "+44 7700 900123", "030 1234567", "030 / 1234567", "0171-1234567",
            "(030) 1234567", "+49 30 1234567", "+49 (0)30 1234567", "06 12 34 56 78", "06.12.34.56.78",
            "+33 6 12 34 56 78", "0033 6 12 34 56 78", "0612345678", "+14155552671", "13800138000"})
    void phoneNumbersInTheirUsualShapesAreReplaced(String phone) {
        assertEquals("call [phone] today", redact.apply("call " + phone + " today"), phone);
    }

    @ParameterizedTest
    @ValueSource(strings = {"4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "5555555555554444",
            "3782 822463 10005", "3056 930902 5904", "6011 1111 1111 1117", "2223 0031 2200 3222",
            "4222 2222 2222 2"})
    void cardNumbersInTheShapesCardsAreWrittenInAreReplaced(String card) {
        assertEquals("pay [card] now", redact.apply("pay " + card + " now"), card);
    }

    /** An audit (2026-11-29): a dot or slash mixed with other separators let the number through as typed. */
    @ParameterizedTest
    @ValueSource(strings = {"4111 1111.1111 1111", "4111.1111 1111.1111", "4111-1111.1111-1111", "4111.1111-1111.1111",
            "4111/1111 1111 1111", "4111 1111/1111-1111", "5555 5555 5555.4444", "5555.5555.5555 4444",
            "4111 1111 - 1111.1111", "4222.2222 2222 2"})
    void cardNumbersWithMixedSeparatorsAreReplaced(String card) {
        assertEquals("pay [card] now", redact.apply("pay " + card + " now"), card);
    }

    @Test
    void mixedSeparatorsMakeNoCardOfTheMiddleOfALongerNumberOrOfDecimalsFailingTheCheck() {
        for (String text : List.of("totals 4111.1111 1111.1111.5 and 1111", "v 1.4111 1111 1111.1111",
                "ratio 1234.5678 9012.3456 apart", "x 1111 4111.1111 1111.1111 1111")) {
            assertEquals(text, redact.apply(text), text);
        }
    }

    @Test
    void aCardRunningIntoANumberAfterItIsStillFound() {
        assertEquals("card [card] 2026", redact.apply("card 4111 1111 1111 1111 2026"));
        assertEquals("[card] [card]", redact.apply("4111 1111 1111 1111 5500 0000 0000 0004"));
    }

    @Test
    void addressesNeedATopLevelDomainThatIsNoFileExtension() {
        assertEquals("write to [email] or [email]", redact.apply("write to jan@firma.pl or ann@shop.zip"),
                "country codes and gTLDs that are also extensions are domains");
        assertEquals("see [email] and foo@2x.png", redact.apply("see foo@2x.co and foo@2x.png"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"x\u00b2 + y\u00b2", "\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67",
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "\u2460\u2461\u2462", "\u00bd cup",
            "\ufb01le", "\uff21\uff22", "a\u00a0b", "1\u20132", "e\u0301", "soft\u00adhyphen", "&#64; &amp;",
            "H\u2082O", "\u2167"})
    void foldingOnlyFindsTextOutsideWhatIsReplacedStaysAsWritten(String fragment) {
        assertEquals(fragment + " mail [email] " + fragment,
                redact.apply(fragment + " mail ann\u200b@example.com " + fragment), fragment);
        assertEquals(fragment + " call [phone], " + fragment,
                redact.apply(fragment + " call +33\u00a06\u00a012\u00a034\u00a056\u00a078, " + fragment), fragment);
        assertEquals(fragment + " card [card]. " + fragment,
                redact.apply(fragment + " card \uff14\uff11\uff11\uff11 1111 1111 1111. " + fragment), fragment);
        assertEquals(fragment, redact.apply(fragment), "nothing personal: " + fragment);
    }

    @Test
    void invisibleCharactersAroundWhatIsReplacedAreKept() {
        assertEquals("mail [email] ok\u00ad", redact.apply("mail john\u00ad.doe@example.com ok\u00ad"));
        assertEquals("card [card]\u200b5", redact.apply("card 4111 1111 1111 1111\u200b5"),
                "found as written, though the folded reading joins it to the 5");
        assertEquals("call [phone] now\u2013ok", redact.apply("call 555\u2013123\u20134567 now\u2013ok"));
    }

    @Test
    void hostileInputStaysFast() {
        String dots = "a@" + "a.".repeat(100_000) + "!";
        String digits = "1 ".repeat(200_000);
        String folded = "\u00bd 06 &#64; 4111 ".repeat(20_000);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            redact.apply(dots);
            redact.apply(digits);
            assertEquals(folded, redact.apply(folded));
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
    void dataSplitAcrossTextPartsIsFoundAndEachPartKeepsItsPlace() {
        // An audit: each part was redacted on its own, so the pieces went upstream as they were.
        assertEquals(List.of("My e-mail is [email]", " and my card is [card]", ". Phone [phone]", "."),
                redact.applyJoined(List.of("My e-mail is jane.doe@", "example.com and my card is 4111 1111 ",
                        "1111 1111. Phone +1 415 ", "555 0132.")));
        assertEquals(List.of("a ", "", "[email] b"), redact.applyJoined(List.of("a ", "", "x@example.com b")));
        assertEquals(List.of(), redact.applyJoined(List.of()));
    }

    @Test
    void textPartsAreRedactedTogetherAndImageDataIsLeftAlone() {
        // An audit: base64 image data held IBAN look-alikes that passed mod 97 and were replaced, breaking the image.
        String url = "data:image/png;base64,iVBORw0/GB82WEST12345698765432/AAAA=";
        assertEquals(false, redact.apply(url).equals(url), "the data would be mangled if it were redacted");
        String json = "{\"role\":\"user\",\"name\":\"ann@example.org\",\"content\":[{\"type\":\"text\","
                + "\"text\":\"write to jane.doe@\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"" + url
                + "\"}},{\"type\":\"text\",\"text\":\"example.com today\"}]}";
        ChatMessage message = new ChatMessage("user", "write to jane.doe@example.com today", json, "ann@example.org",
                1);
        ChatMessage clean = new ChatRequest(new dev.tollgate.domain.catalog.ModelId("m"), List.of(message), null,
                null, null, null, null, null, null, false, null, null, null, null, null, false)
                .sanitised(redact).messages().get(0);
        assertEquals("write to [email] today", clean.text());
        assertEquals(json.replace("ann@example.org", "[email]").replace("jane.doe@", "[email]")
                .replace("example.com today", " today"), clean.json());
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

    /**
     * A fuzzing audit (G17) flagged a quoted address before an address literal followed by digits, repeated, as
     * slower than 1 s (timeout-6a5895… in PiiRedactorFuzzTestInputs), and later an IBAN, an escaped @ and SSN-like
     * digits (timeout-80685a…): those were the fuzzer's cold start and its regex hooks (off since: bench/fuzz.sh);
     * both inputs take under 40 ms in the build. Measured plainly, the text at the
     * playground's whole prompt limit takes milliseconds.
     */
    @Test
    void aQuotedAddressWithALiteralRepeatedToThePromptLimitIsRedactedQuickly() {
        String unit = "\"quoted local\"@[192.168.0.1] 00 ";
        String prompt = unit.repeat(65_536 / unit.length());
        assertTimeoutPreemptively(Duration.ofSeconds(1), () -> {
            String redacted = redact.apply(prompt);
            assertEquals("[email] 00 ".repeat(65_536 / unit.length()), redacted);
        });
    }
}
