package dev.tollgate.application.port.out;

/**
 * Out port: the fingerprint of the key hashing (the pepper) the stored keys were issued with, kept beside them, so
 * every process that hashes keys against the same store can tell whether it hashes them the same way.
 */
public interface KeyHashingRecord {

    /** Records {@code fingerprint} when none is recorded yet (atomically), and answers the one recorded. */
    String recordOrRead(String fingerprint);
}
