package dev.tollgate.bootstrap.wiring;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.catalog.FileModelCatalog;
import dev.tollgate.adapter.out.upstream.common.ConfiguredModelProviders;
import dev.tollgate.adapter.out.upstream.common.UpstreamHttp;
import dev.tollgate.adapter.out.upstream.common.JtokkitTokenCounter;
import dev.tollgate.application.port.in.completions.ListModelsUseCase;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.ModelCatalog;
import dev.tollgate.application.port.out.ModelProviders;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.application.service.common.RecentApiKeys;
import dev.tollgate.application.service.completions.AuthenticateApiKeyService;
import dev.tollgate.application.service.completions.ChatCompletionService;
import dev.tollgate.application.service.completions.CompletionSettings;
import dev.tollgate.application.service.completions.HoldSweeper;
import dev.tollgate.application.service.completions.ModelCatalogService;
import dev.tollgate.application.service.completions.PlaygroundChatService;
import dev.tollgate.application.service.completions.PlaygroundSettings;
import dev.tollgate.application.port.out.PlaygroundLedger;
import dev.tollgate.domain.catalog.ModelId;
import java.util.List;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.domain.shared.KeyHasher;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.netty.channel.EventLoopGroupConfiguration;
import io.micronaut.http.netty.channel.EventLoopGroupFactory;
import io.micronaut.http.netty.channel.EventLoopGroupRegistry;
import io.micronaut.http.netty.channel.NettyChannelType;
import io.micronaut.json.JsonMapper;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import org.slf4j.LoggerFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Wiring: the model surface — catalog, providers, tokenizer, billing and the completion use cases. */
@Factory
public class CompletionsFactory {

    /** The catalog file: {@code TOLLGATE_CATALOG}, else the catalog shipped in the jar. */
    @Singleton
    @Named("catalog-path")
    Path catalogPath(@Value("${tollgate.catalog:}") String path) {
        return path.isBlank() ? Path.of("") : Path.of(path);
    }

    private static Path fileOrShipped(Path path) {
        return path.toString().isEmpty() ? null : path;
    }

    /** A re-read file's providers are checked as the start-up checks them (built, not used). */
    @Singleton
    ModelCatalog modelCatalog(@Named("catalog-path") Path path,
            @Value("${tollgate.catalog-check-interval:1s}") Duration checkInterval, TokenCounter tokens,
            JsonMapper json, @Named("request-timers") ScheduledExecutorService timers, UpstreamHttp http) {
        return new FileModelCatalog(fileOrShipped(path), checkInterval,
                catalog -> new ConfiguredModelProviders(catalog, tokens, timers, http, json));
    }

    @Singleton
    TokenCounter tokenCounter() {
        return new JtokkitTokenCounter();
    }

    @Singleton
    @Named("request-timers")
    @Bean(preDestroy = "shutdownNow")
    ScheduledExecutorService requestTimers() {
        AtomicInteger n = new AtomicInteger();
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(2, r -> {
            Thread thread = new Thread(r, "request-timer-" + n.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        // Every request arms timers (first byte, idle, max duration, a stream's keep-alive) and cancels them when it
        // ends; without this the cancelled ones would stay queued until their deadline, minutes later.
        timers.setRemoveOnCancelPolicy(true);
        // A task scheduled at the head of the queue wakes a timer thread to wait for the new, earlier deadline;
        // a request's timeouts (first byte, idle, duration: seconds to minutes away) would each do that on an
        // otherwise empty queue, up to three thread wake-ups per request. This heartbeat keeps a deadline at most
        // 50 ms away at the head, so arming a timeout only inserts it (20 wake-ups a second in all).
        timers.scheduleAtFixedRate(() -> { }, 50, 50, TimeUnit.MILLISECONDS);
        return timers;
    }

    /**
     * Upstream calls run on the server's own event loops: an answer is passed on without a thread hand-off. The
     * channel class follows the default loops' own configuration (epoll or NIO), as the server's channels do.
     */
    @Singleton
    @Bean(preDestroy = "close")
    UpstreamHttp upstreamHttp(EventLoopGroupRegistry loops, EventLoopGroupFactory transports,
            @Value("${tollgate.upstream.pool-idle-timeout:30s}") Duration idleTimeout, Clock clock) {
        EventLoopGroupConfiguration loopConfiguration =
                loops.getEventLoopGroupConfiguration(EventLoopGroupConfiguration.DEFAULT).orElse(null);
        return new UpstreamHttp(loops.getDefaultEventLoopGroup(),
                transports.channelClass(NettyChannelType.CLIENT_SOCKET, loopConfiguration), idleTimeout, clock);
    }

    /** Built at start-up (a broken provider section stops the start with a clear error, not the first request). */
    @Context
    ModelProviders modelProviders(@Named("catalog-path") Path path, TokenCounter tokens, JsonMapper json,
            @Named("request-timers") ScheduledExecutorService timers, UpstreamHttp http) {
        CatalogFile catalog = FileModelCatalog.load(fileOrShipped(path));
        LoggerFactory.getLogger(CompletionsFactory.class).info("Model catalog: {} ({} models, {} providers)",
                fileOrShipped(path) == null ? "the shipped default (set TOLLGATE_CATALOG to use a file)" : path,
                catalog.models().size(), catalog.providers().size());
        return new ConfiguredModelProviders(catalog, tokens, timers, http, json);
    }

    @Singleton
    CompletionSettings completionSettings(
            @Value("${tollgate.completions.first-byte-timeout:120s}") Duration firstByte,
            @Value("${tollgate.completions.idle-timeout:60s}") Duration idle,
            @Value("${tollgate.completions.hold-lease:15m}") Duration lease,
            @Value("${tollgate.completions.max-retries:3}") int maxRetries) {
        return new CompletionSettings(firstByte, idle, lease, maxRetries, Duration.ofSeconds(1),
                Duration.ofSeconds(8));
    }

    @Singleton
    ModelCatalogService listModels(ModelCatalog catalog) {
        return new ModelCatalogService(catalog);
    }

    @Singleton
    AuthenticateApiKeyService authenticateApiKey(RecentApiKeys apiKeys, KeyHasher hasher, Clock clock) {
        return new AuthenticateApiKeyService(apiKeys, hasher, clock);
    }

    @Singleton
    ChatCompletionService completeChat(ListModelsUseCase models, ModelProviders providers, TokenCounter tokens,
            BillingLedger billing, Clock clock, @Named("request-timers") ScheduledExecutorService timers,
            @Named(TaskExecutors.BLOCKING) ExecutorService blocking, CompletionSettings settings,
            TrafficGuard traffic) {
        return new ChatCompletionService(models, providers, tokens, billing, clock, timers, blocking, settings,
                traffic);
    }

    /** §8.2: the public playground — its free models, output cap, and whether signed-in callers pay themselves. */
    @Singleton
    PlaygroundSettings playgroundSettings(
            @Value("${tollgate.playground.models:tollgate/simulator-free}") List<String> models,
            @Value("${tollgate.playground.max-output-tokens:1024}") int maxOutputTokens,
            @Value("${tollgate.playground.max-prompt-chars:" + PlaygroundSettings.DEFAULT_MAX_PROMPT_CHARS + "}")
            long maxPromptChars,
            @Value("${tollgate.playground.user-billed:false}") boolean userBilled, ModelCatalog catalog) {
        List<ModelId> free = models.stream().map(String::trim).filter(m -> !m.isEmpty()).map(ModelId::new).toList();
        // A custom catalog without the shipped free model (or a misspelt id) leaves the playground answering 404: said
        // once at start-up (an audit, 2026-11-29). Not refused: the catalog may gain the model on a reload.
        java.util.Set<String> known = catalog.models().stream().map(m -> m.id().value())
                .collect(java.util.stream.Collectors.toSet());
        free.stream().filter(id -> !known.contains(id.value())).forEach(id -> LoggerFactory.getLogger(
                CompletionsFactory.class).warn("TOLLGATE_PLAYGROUND_MODELS names {}, which the model catalog does "
                + "not have: the playground answers 404 for it until the catalog has it", id.value()));
        return new PlaygroundSettings(free, maxOutputTokens, maxPromptChars, userBilled);
    }

    @Singleton
    PlaygroundChatService playground(ChatCompletionService completions, TrafficGuard traffic, PlaygroundLedger ledger,
            PlaygroundSettings settings) {
        return new PlaygroundChatService(completions, traffic, ledger, settings);
    }

    @Singleton
    HoldSweeper holdSweeper(BillingLedger billing, Clock clock) {
        return new HoldSweeper(billing, clock);
    }
}
