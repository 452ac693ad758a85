package dev.tollgate.adapter.out.upstream.mail;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.application.port.out.MailMessage;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutboxMailerTest {

    @Test
    void keepsTheNewestMailsFirstUpToItsCapacity() {
        MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
        OutboxMailer outbox = new OutboxMailer(clock, 2);
        for (int i = 1; i <= 3; i++) {
            outbox.send(new MailMessage(new Email("u" + i + "@example.com"), "Mail " + i, "text", null));
            clock.advance(Duration.ofSeconds(1));
        }
        List<String> subjects = outbox.recent().stream().map(m -> m.message().subject()).toList();
        assertEquals(List.of("Mail 3", "Mail 2"), subjects);
        assertEquals(clock.instant().minusSeconds(1), outbox.recent().get(0).sentAt());
    }
}
