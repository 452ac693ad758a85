package dev.tollgate.domain.account;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.shared.SigningKey;
import java.time.Instant;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class EmailVerificationTokenTest {

    private static final SigningKey KEY = SigningKey.of("0123456789abcdef0123456789abcdef");
    private static final Instant EXPIRY = Instant.parse("2026-06-02T10:00:00Z");
    private final AccountId account = AccountId.newId();
    private final Email email = new Email("v@example.com");

    @Test
    void roundTripsThroughItsTextAndIsValidUntilItsExpiry() {
        EmailVerificationToken token = EmailVerificationToken.sign(account, email, EXPIRY, KEY);
        EmailVerificationToken read = EmailVerificationToken.parse(token.text()).orElseThrow();
        assertEquals(token, read);
        assertTrue(read.isValidFor(email, KEY, EXPIRY.minusSeconds(1)));
        assertFalse(read.isValidFor(email, KEY, EXPIRY));
        assertFalse(read.isValidFor(new Email("w@example.com"), KEY, EXPIRY.minusSeconds(1)));
        assertFalse(read.isValidFor(email, SigningKey.of("another key of thirty-two chars!!"), EXPIRY.minusSeconds(1)));
    }

    @Test
    void itsTextNeverLooksLikeAKey() {
        Pattern rawKey = Pattern.compile("gpm?-[0-9A-Za-z]{20,}");
        for (int i = 0; i < 200; i++) {
            String text = EmailVerificationToken.sign(AccountId.newId(), email, EXPIRY, KEY).text();
            assertFalse(rawKey.matcher(text).find(), text);
        }
    }

    @Test
    void anythingElseIsNoToken() {
        for (String text : new String[] {null, "", "x", "a.b.c", account + ".12.zz", account + ".1." + "g".repeat(64),
                "x".repeat(500)}) {
            assertEquals(Optional.empty(), EmailVerificationToken.parse(text), String.valueOf(text));
        }
        assertFalse(EmailVerificationToken.sign(account, email, EXPIRY, KEY).toString().contains(
                EmailVerificationToken.sign(account, email, EXPIRY, KEY).signature()), "toString hides the signature");
    }
}
