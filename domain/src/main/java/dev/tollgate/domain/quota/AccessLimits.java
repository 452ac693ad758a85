package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.Objects;

/**
 * The dashboard's limits on guessing and on mail, all configurable: sign-in attempts per e-mail address and per
 * source IP within {@code loginWindow} (10 each per 15 minutes), and mails the gateway sends on a visitor's request
 * (sign-up, resent verification links) per recipient and per source IP within {@code mailWindow} (5 and 20 per hour).
 */
public record AccessLimits(long loginPerEmail, long loginPerIp, Duration loginWindow, long mailPerRecipient,
        long mailPerIp, Duration mailWindow) {

    public static final AccessLimits DEFAULTS = new AccessLimits(10, 10, Duration.ofMinutes(15), 5, 20,
            Duration.ofHours(1));

    public AccessLimits {
        Objects.requireNonNull(loginWindow);
        Objects.requireNonNull(mailWindow);
        TrafficLimits.positive("sign-in attempts per e-mail", loginPerEmail);
        TrafficLimits.positive("sign-in attempts per source IP", loginPerIp);
        TrafficLimits.positive("sign-in window", loginWindow.toMillis());
        TrafficLimits.positive("mails per recipient", mailPerRecipient);
        TrafficLimits.positive("mails per source IP", mailPerIp);
        TrafficLimits.positive("mail window", mailWindow.toMillis());
    }
}
