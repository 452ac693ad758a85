package dev.tollgate.application.port.out;

/**
 * Out port: what the anonymous public playground cost the operator (§8.2: its models are paid by the operator) —
 * one row per request, with no account and no key ({@code keyHash} is null).
 */
public interface PlaygroundLedger {

    void record(BillingLedger.Settlement settlement);
}
