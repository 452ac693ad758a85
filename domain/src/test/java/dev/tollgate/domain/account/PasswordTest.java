package dev.tollgate.domain.account;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.domain.shared.DomainRuleViolation;
import org.junit.jupiter.api.Test;

class PasswordTest {

    private final Email email = new Email("owner@example.com");

    @Test
    void lengthIsCountedInCharactersNotBytes() {
        assertEquals("ü".repeat(10), Password.choose("ü".repeat(10), email).reveal());
        assertEquals(256, Password.choose("😀".repeat(256), email).reveal().codePointCount(0, 512));
        assertThrows(DomainRuleViolation.class, () -> Password.choose("😀".repeat(9), email));
        assertThrows(DomainRuleViolation.class, () -> Password.choose("😀".repeat(257), email));
    }

    @Test
    void notTheEmailAddressNorOnlySpaces() {
        assertThrows(DomainRuleViolation.class, () -> Password.choose("Owner@Example.com", email));
        assertThrows(DomainRuleViolation.class, () -> Password.choose(" owner@example.com ", email));
        assertThrows(DomainRuleViolation.class, () -> Password.choose(" ".repeat(12), email));
        for (String invisible : java.util.List.of("\u00a0", " \u00a0", "\u200b", "\u0000", "\u3000", "\t", "\u2007",
                "\u202f", "\ufeff", "\u200d", "\u3164", "\u2800", "\ufe0f", "\u0301", "\u115f")) {
            assertThrows(DomainRuleViolation.class, () -> Password.choose(invisible.repeat(12), email),
                    "only " + invisible.codePoints().mapToObj(Integer::toHexString).toList());
        }
        Password.choose("\u00a0".repeat(11) + "x", email); // one visible character is enough for this rule
        Password.choose("cafe\u0301 au lait", email); // a combining accent on a letter is fine
        assertThrows(DomainRuleViolation.class, () -> Password.choose(null, email));
        Password.choose("owner@example.com!", email);
    }

    @Test
    void neverShowsItself() {
        Password password = Password.choose("a very secret phrase", email);
        assertFalse(password.toString().contains("secret"));
        assertEquals(512, Password.given("x".repeat(5000)).reveal().length(), "over-long sign-in input is cut");
        assertEquals("", Password.given(null).reveal());
    }
}
