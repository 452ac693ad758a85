package dev.tollgate.application.port.in.account;

import dev.tollgate.domain.account.AccountId;

/** Use case: send a signed-in, unverified account a fresh verification link. */
public interface ResendVerificationUseCase {

    /**
     * Does nothing for an account that is verified already.
     *
     * @throws dev.tollgate.application.port.in.traffic.RateLimitExceededException too many mails
     * @throws MailUnavailableException the mail could not be sent
     */
    void resend(AccountId accountId, String sourceIp);
}
