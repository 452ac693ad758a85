package dev.tollgate.domain.account;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.domain.shared.DomainRuleViolation;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EmailTest {

    @Test
    void isTrimmedAndLowerCasedSoOneAddressIsOneAccount() {
        assertEquals("alice@example.com", new Email("  Alice@Example.COM \n").value());
        assertEquals(new Email("alice@example.com"), new Email("ALICE@EXAMPLE.COM"));
        assertEquals(new Email("alice@example.com").hashCode(), new Email("ALICE@EXAMPLE.COM").hashCode());
        assertEquals("alice@example.com", new Email("Alice@example.com").toString());
    }

    @Test
    void lowerCasingDoesNotDependOnTheDefaultLocale() {
        // In a Turkish default locale "I".toLowerCase() is a dotless ı; the address must not change with it.
        Locale previous = Locale.getDefault();
        try {
            Locale.setDefault(Locale.forLanguageTag("tr-TR"));
            assertEquals("iris@example.com", new Email("IRIS@EXAMPLE.COM").value());
        } finally {
            Locale.setDefault(previous);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"a@b.c", "first.last+tag@sub.example.co.uk", "x_y-z@host-1.example",
        "o'brien@example.com", "jürgen@müller.example", "a@xn--p1ai.xn--p1ai"})
    void acceptsOrdinaryAddresses(String value) {
        assertEquals(value, new Email(value).value());
    }

    @Test
    void nullIsRefused() {
        DomainRuleViolation violation = assertThrows(DomainRuleViolation.class, () -> new Email(null));
        assertEquals("email", violation.field());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "alice", "alice@", "@example.com", "alice@example", "alice@@example.com",
            "al ice@example.com", "alice@exa mple.com", "alice@example.", "alice.example.com", "a@b@c.d",
            "nul\u0000@example.com", "x\u001b[2K@example.com", "a\u2028b@example.com", "a\u0085b@example.com",
            "a\u200bb@example.com", "<script>x</script>@x.com", "v6@example.com>", "a\"b@example.com",
            "a(comment)@example.com", "alice@example.com.", ".alice@example.com", "alice.@example.com",
            "al..ice@example.com", "a@-example.com", "a@example-.com", "a@exa_mple.com", "a;b@example.com"})
    void refusesWhatIsNoAddress(String value) {
        DomainRuleViolation violation = assertThrows(DomainRuleViolation.class, () -> new Email(value));
        assertEquals("email", violation.field());
    }

    @Test
    void atMost254Characters() {
        String domain = "@" + "b".repeat(63) + "." + "c".repeat(63) + "." + "d".repeat(57) + ".com";
        String longest = "a".repeat(64) + domain;
        assertEquals(254, new Email(longest).value().length());
        assertThrows(DomainRuleViolation.class, () -> new Email(longest.replace("@", "@e")));
        assertThrows(DomainRuleViolation.class, () -> new Email("a".repeat(65) + "@example.com"),
                "a local part of at most 64 characters");
    }
}
