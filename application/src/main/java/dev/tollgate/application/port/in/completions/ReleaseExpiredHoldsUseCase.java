package dev.tollgate.application.port.in.completions;

/** Use case: settle holds whose request died with its process (crash, kill -9) once their lease ran out. */
public interface ReleaseExpiredHoldsUseCase {

    /** @return how many holds were released */
    int releaseExpired();
}
