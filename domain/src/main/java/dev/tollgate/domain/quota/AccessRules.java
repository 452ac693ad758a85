package dev.tollgate.domain.quota;

import java.util.List;
import java.util.Objects;

/**
 * The dashboard's limits as checks, decided by the same counter store as §8 (in process or Redis): every sign-in
 * attempt counts, successful or not, against its e-mail address and its source IP; every mail a visitor makes the
 * gateway send counts against its recipient and the visitor's source IP. Addresses appear only as digests.
 */
public final class AccessRules {

    private final AccessLimits limits;

    public AccessRules(AccessLimits limits) {
        this.limits = Objects.requireNonNull(limits);
    }

    public AccessLimits limits() {
        return limits;
    }

    /** A sign-in attempt for the address with {@code emailDigest} from {@code ip}. */
    public TrafficDemand loginAttempt(String emailDigest, String ip) {
        return new TrafficDemand(List.of(
                new QuotaCheck.Requests(new Bucket(LimitScope.LOGIN_EMAIL, emailDigest, "attempts"),
                        limits.loginPerEmail(), limits.loginWindow(), null),
                new QuotaCheck.Requests(new Bucket(LimitScope.LOGIN_IP, ip, "attempts"), limits.loginPerIp(),
                        limits.loginWindow(), null)), List.of(), CooldownRule.DEFAULT, null);
    }

    /** A mail to the address with {@code recipientDigest}, asked for from {@code ip}. */
    public TrafficDemand mailSend(String recipientDigest, String ip) {
        return new TrafficDemand(List.of(
                new QuotaCheck.Requests(new Bucket(LimitScope.MAIL_RECIPIENT, recipientDigest, "mails"),
                        limits.mailPerRecipient(), limits.mailWindow(), null),
                new QuotaCheck.Requests(new Bucket(LimitScope.MAIL_IP, ip, "mails"), limits.mailPerIp(),
                        limits.mailWindow(), null)), List.of(), CooldownRule.DEFAULT, null);
    }
}
