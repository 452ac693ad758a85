package dev.tollgate.application.port.in.account;

/**
 * Use case: open an e-mail verification link; a valid one, with the account's password, marks the account's e-mail
 * verified (§1, §5.5). The password proves that whoever reads the mailbox also chose the password: a link mailed
 * after someone else signed up with the address (to take the account over once its owner confirms) verifies
 * nothing without that someone's password.
 */
public interface VerifyEmailLinkUseCase {

    /**
     * @return whether the link was valid (signed by this gateway, for the account's address, not expired) and
     *         {@code password} is the account's
     */
    boolean verify(String token, String password);
}
