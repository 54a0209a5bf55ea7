package panamax.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import panamax.engine.serve.SchedulerObserver;
import panamax.engine.serve.SchedulerStats;

/**
 * The server's Prometheus metrics through Micrometer: requests by outcome, prompt, cached and
 * generated tokens, prefix-cache hits, the scheduler's running rows, queue and KV bytes, its time
 * spent prefilling and decoding, and
 * histograms of time to first token, inter-token latency and request duration. Thread-safe.
 */
final class ServerMetrics implements SchedulerObserver {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Counter promptTokens = Counter.builder("panamax_prompt_tokens").description("prompt tokens admitted, cached ones included").register(registry);
    private final Counter cachedTokens = Counter.builder("panamax_prefix_cached_tokens").description("prompt tokens taken from the prefix cache").register(registry);
    private final Counter prefixHits = Counter.builder("panamax_prefix_cache_hits").description("requests that started from a cached prefix").register(registry);
    private final Counter generated = Counter.builder("panamax_generation_tokens").description("tokens generated").register(registry);
    private final Timer firstToken = latency("panamax_time_to_first_token", "from a request's arrival to its first token", Duration.ofMillis(1), Duration.ofSeconds(60));
    private final Timer interToken = latency("panamax_inter_token_latency", "between a row's consecutive tokens", Duration.ofMillis(1), Duration.ofSeconds(10));
    private final ConcurrentHashMap<String, Counter> outcomes = new ConcurrentHashMap<>();
    private final Timer duration = latency("panamax_request_duration", "from a request's arrival to its end", Duration.ofMillis(1), Duration.ofSeconds(600));

    /** @param stats the scheduler's current state, or null before the model is loaded */
    ServerMetrics(Supplier<SchedulerStats> stats) {
        gauge("panamax_running_rows", "rows decoding or prefilling", stats, SchedulerStats::runningRows);
        gauge("panamax_queue_length", "requests waiting for admission", stats, SchedulerStats::queued);
        gauge("panamax_kv_bytes", "bytes the running rows' KV cache holds", stats, SchedulerStats::kvBytes);
        gauge("panamax_prefix_cache_bytes", "bytes the prefix cache holds", stats, SchedulerStats::prefixCacheBytes);
        gauge("panamax_kv_budget_bytes", "the memory budget of the KV cache and the prefix cache", stats, SchedulerStats::memoryBudget);
        busy("panamax_scheduler_prefill_seconds", "time the scheduler thread spent prefilling prompts", stats, SchedulerStats::prefillSeconds);
        busy("panamax_scheduler_decode_seconds", "time the scheduler thread spent in decode steps", stats, SchedulerStats::decodeSeconds);
    }

    private void gauge(String name, String description, Supplier<SchedulerStats> stats, ToDoubleFunction<SchedulerStats> value) {
        Gauge.builder(name, () -> {
            SchedulerStats s = stats.get();
            return s == null ? 0 : value.applyAsDouble(s);
        }).description(description).register(registry);
    }

    private void busy(String name, String description, Supplier<SchedulerStats> stats, ToDoubleFunction<SchedulerStats> value) {
        // Micrometer holds the counter's object weakly (then freezes its value): this metrics object lives as long as the server
        FunctionCounter.builder(name, this, metrics -> {
            SchedulerStats now = stats.get();
            return now == null ? 0 : value.applyAsDouble(now);
        }).description(description).register(registry);
    }

    private Timer latency(String name, String description, Duration min, Duration max) {
        return Timer.builder(name).description(description).publishPercentileHistogram().minimumExpectedValue(min)
                .maximumExpectedValue(max).register(registry);
    }

    /**
     * Counts a request that ended with {@code outcome} (stop, length, cancelled, error, or an HTTP status for a refusal).
     * Each outcome's counter is registered once and kept: the scheduler thread counts every finished row, and a
     * registry lookup there cost about 0.1 ms per request (a wall-clock profile of {@code bench serve}).
     */
    void outcome(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> Counter.builder("panamax_requests").description("requests by outcome").tag("outcome", o)
                .register(registry)).increment();
    }

    @Override
    public void admitted(int prompt, int cached) {
        promptTokens.increment(prompt);
        if (cached > 0) {
            prefixHits.increment();
            cachedTokens.increment(cached);
        }
    }

    @Override
    public void firstToken(double seconds) {
        firstToken.record(nanos(seconds));
        generated.increment();
    }

    @Override
    public void interToken(double seconds) {
        interToken.record(nanos(seconds));
        generated.increment();
    }

    @Override
    public void finished(String outcome, int completionTokens, double seconds) {
        outcome(outcome);
        duration.record(nanos(seconds));
    }

    private static Duration nanos(double seconds) {
        return Duration.ofNanos((long) (seconds * 1e9));
    }

    /** The Prometheus text exposition. */
    String scrape() {
        return registry.scrape();
    }
}
