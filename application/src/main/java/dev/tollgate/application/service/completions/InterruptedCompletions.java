package dev.tollgate.application.service.completions;

/**
 * What ending the running completions at shutdown did ({@link ChatCompletionService#interruptRunning}).
 *
 * @param ended     completions (on {@code /v1} and the playground) that were still running and were ended
 * @param unsettled of those, how many settlements were not written before the wait ran out
 */
public record InterruptedCompletions(int ended, int unsettled) {
}
