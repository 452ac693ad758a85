package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.completion.AnswerChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Test fixture: records what a provider reports to its listener. */
public final class RecordingListener implements ModelProvider.UpstreamListener {

    public final List<String> deltas = new CopyOnWriteArrayList<>();
    public final List<String> toolCalls = new CopyOnWriteArrayList<>();
    public final List<String> logprobs = new CopyOnWriteArrayList<>();
    /** Refusal and reasoning text, each as {@code CHANNEL:text}, in order with nothing else. */
    public final List<String> texts = new CopyOnWriteArrayList<>();
    /** Every output event in order: {@code content:…}, {@code REFUSAL:…}, {@code REASONING:…}. */
    public final List<String> outputs = new CopyOnWriteArrayList<>();
    public final CountDownLatch done = new CountDownLatch(1);
    public volatile boolean firstByte;
    public volatile String finishReason;
    public volatile TokenUsage usage;
    public volatile ModelProvider.UpstreamFailure failure;
    /** The provider's counts of the prompt told before the end ({@link #onPromptCounted}), in order. */
    public final List<Long> promptCounts = new CopyOnWriteArrayList<>();

    /** How often the provider said it was there (the answer's start, keep-alives, chunks without output). */
    public final AtomicInteger alive = new AtomicInteger();

    /** The finish reason and usage told while only a usage report and the stream's end may still follow. */
    public volatile String finishedAwaiting;
    public volatile TokenUsage usageSoFar;
    public final CountDownLatch finishedAwaitingTold = new CountDownLatch(1);

    @Override
    public void onFinishReason(String finishReason, TokenUsage usageSoFar) {
        this.finishedAwaiting = finishReason;
        this.usageSoFar = usageSoFar;
        finishedAwaitingTold.countDown();
    }

    @Override
    public void onFirstByte() {
        firstByte = true;
        alive.incrementAndGet();
    }

    @Override
    public void onDelta(String text) {
        deltas.add(text);
        outputs.add("content:" + text);
        if (deltas.size() == pauseAfter) {
            ModelProvider.UpstreamCall call;
            while ((call = pausing.get()) == null) {
                Thread.onSpinWait(); // the call is known once call() returned
            }
            call.pause(); // on the delivering thread, as the gateway does when its client lags
        }
    }

    private int pauseAfter = -1;
    private final java.util.concurrent.atomic.AtomicReference<ModelProvider.UpstreamCall> pausing =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** A recorder that pauses its call after {@code deltas} pieces of text; tell it the call with {@link #of}. */
    public static RecordingListener pausingAfter(int deltas) {
        RecordingListener recorder = new RecordingListener();
        recorder.pauseAfter = deltas;
        return recorder;
    }

    /** The call this recorder listens to (for {@link #pausingAfter}); answers it. */
    public ModelProvider.UpstreamCall of(ModelProvider.UpstreamCall call) {
        pausing.set(call);
        return call;
    }

    @Override
    public void onText(AnswerChannel channel, String text) {
        texts.add(channel + ":" + text);
        outputs.add(channel + ":" + text);
    }

    @Override
    public void onToolCallDelta(String toolCallsJson) {
        toolCalls.add(toolCallsJson);
    }

    @Override
    public void onPromptCounted(long promptTokens) {
        promptCounts.add(promptTokens);
    }

    @Override
    public void onLogprobs(String contentJson) {
        logprobs.add(contentJson);
    }

    @Override
    public void onFinish(String reason, TokenUsage reported) {
        finishReason = reason;
        usage = reported;
        done.countDown();
    }

    @Override
    public void onFailure(ModelProvider.UpstreamFailure f) {
        failure = f;
        done.countDown();
    }

    public void await() throws InterruptedException {
        await(5);
    }

    /** For answers large enough that reading them takes a while on a busy machine (a check of what, not of when). */
    public void await(int seconds) throws InterruptedException {
        assertTrue(done.await(seconds, TimeUnit.SECONDS), "no terminal event within " + seconds + " s");
    }

    /** The answer's text so far. */
    public String text() {
        return String.join("", deltas);
    }
}
