package dev.tollgate.application.port.in.account;

/**
 * Use case: sign up on the dashboard. Answers the same whether or not the address has an account already: a new
 * address gets an account (unverified) and a verification link, a known one a notice instead, so that sign-up never
 * tells a visitor which addresses are registered.
 */
public interface SignUpUseCase {

    /**
     * @throws dev.tollgate.domain.shared.DomainRuleViolation the password breaks a rule (length, not the e-mail)
     * @throws dev.tollgate.application.port.in.traffic.RateLimitExceededException too many mails for this address
     *         or from this source IP
     * @throws MailUnavailableException the mail could not be sent
     */
    void signUp(SignUpCommand command);
}
