package dev.svc.core.metrics;

import dev.svc.core.domain.Benchmarks;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The keys of a {@code metrics.json} document (docs/metrics.md, "The files of a run"), in document order: the one
 * definition the runner, the simulator and the tests share. Lists are immutable.
 */
public final class MetricKeys {

  // --- top level ---

  public static final String SVC_VERSION = "svc_version";
  public static final String SUITE_NAME = "suite_name";
  public static final String TIMESTAMP = "timestamp";
  public static final String ENGINE = "engine";
  public static final String ENGINE_IMAGE = "engine_image";
  public static final String MODEL = "model";
  public static final String PASSED = "passed";
  public static final String TOTAL_BENCHMARKS = "total_benchmarks";
  public static final String PASSED_COUNT = "passed_count";
  public static final String FAILED_COUNT = "failed_count";
  public static final String TOTAL_TIME_SECONDS = "total_time_seconds";
  public static final String VALID = "valid";
  public static final String RESULTS = "results";
  public static final String SYSTEM_INFO = "system_info";

  /** Every top-level key of a metrics.json document. */
  public static final List<String> TOP_LEVEL = List.of(SVC_VERSION, SUITE_NAME, TIMESTAMP, ENGINE, ENGINE_IMAGE, MODEL,
      PASSED, TOTAL_BENCHMARKS, PASSED_COUNT, FAILED_COUNT, TOTAL_TIME_SECONDS, VALID, RESULTS, SYSTEM_INFO);

  /** Top level, from {@code svc run}: the run's seed (the one given with --seed, else one drawn for the run). */
  public static final String SEED = "seed";
  /** Top level, from {@code svc run}: whether the seed was given (false: drawn at random, so prompts are new). */
  public static final String SEED_GIVEN = "seed_given";

  // --- top level, from svc run: what was measured (with svc_version, seed and each benchmark's prompts_hash) ---

  /** The version the running engine gave (llama.cpp's build_info, the others' version); null when it gave none. */
  public static final String ENGINE_VERSION = "engine_version";
  /** Why {@link #ENGINE_VERSION} is null; present only then. */
  public static final String ENGINE_VERSION_REASON = "engine_version_reason";
  /** The words svc started the engine with (image or binary first), environment values masked; null at --endpoint. */
  public static final String ENGINE_ARGS = "engine_args";
  /** The digest of a container engine's image ({@code repo@sha256:…}, else the local id {@code sha256:…}). */
  public static final String ENGINE_IMAGE_DIGEST = "engine_image_digest";
  /** {@code sha256:…} of the model file, or of the listing of a model directory's files. */
  public static final String MODEL_DIGEST = "model_digest";
  /** Why {@link #MODEL_DIGEST} is null; present only then. */
  public static final String MODEL_DIGEST_REASON = "model_digest_reason";
  /** How many times each performance benchmark ran in this result (the most of any, when they differ). */
  public static final String REPEATS = "repeats";

  /** Top-level marker ({@code true}) of a document the test-agent simulator made up; never in a measurement. */
  public static final String SIMULATED = "simulated";

  // --- one entry of "results" ---

  public static final String TEST_NAME = "test_name";
  public static final String TEST_VERSION = "test_version";
  public static final String RUN_NUMBER = "run_number";
  public static final String METRICS = "metrics";
  public static final String LOAD = "load";
  public static final String ERRORS = "errors";
  /**
   * In the entry of a benchmark run several times (docs/metrics.md, "Repeats and confidence
   * intervals"): how many times ({@link #REPEATS}), each run's own entry ({@link #REPEAT_RUNS}), and
   * per figure the interval of its mean ({@link #CONFIDENCE}); the entry's metrics are the means.
   */
  public static final String REPEAT_RUNS = "repeat_runs";
  /** {@code {"method", "level", "figures": {dotted figure: {"mean", "std", "n", "low", "high"}}}}. */
  public static final String CONFIDENCE = "confidence";
  public static final String CONFIDENCE_METHOD = "method";
  public static final String CONFIDENCE_LEVEL = "level";
  public static final String CONFIDENCE_FIGURES = "figures";
  public static final String CI_N = "n";
  public static final String CI_LOW = "low";
  public static final String CI_HIGH = "high";

  /** The keys of one benchmark's entry in {@code results} ({@code passed} and {@code timestamp} as above). */
  public static final List<String> RESULT = List.of(TEST_NAME, TEST_VERSION, RUN_NUMBER, PASSED, METRICS, LOAD, ERRORS,
      TIMESTAMP);

  public static final String LOAD_MODE = "mode";
  public static final String LOAD_SEED = "seed";
  public static final String LOAD_WARMUP_REQUESTS = "warmup_requests";

  /** The keys of a result's {@code load}. */
  public static final List<String> LOAD_KEYS = List.of(LOAD_MODE, LOAD_SEED, LOAD_WARMUP_REQUESTS);
  /** In a performance benchmark's {@code load}: SHA-256 of its prompts in order, first 16 hex digits. */
  public static final String LOAD_PROMPTS_HASH = "prompts_hash";
  /**
   * In a performance benchmark's {@code load}: the words every prompt of the run opens with (a
   * shared prefix, about one token each), 0 when prompts share nothing.
   */
  public static final String LOAD_PREFIX_TOKENS = "prefix_tokens";

  // --- performance metrics ---

  public static final String AVG_TPS = "avg_tps";
  public static final String OUTPUT_TOKEN_THROUGHPUT = "output_token_throughput";
  public static final String REQUEST_THROUGHPUT = "request_throughput";
  public static final String TTFT_MS = "ttft_ms";
  public static final String TPOT_MS = "tpot_ms";
  public static final String E2E_MS = "e2e_ms";
  public static final String ICG_MS = "icg_ms";
  public static final String TOTAL_ITERATIONS = "total_iterations";
  public static final String TOTAL_TOKENS_GENERATED = "total_tokens_generated";
  public static final String TOKEN_COUNT_SOURCE = "token_count_source";
  public static final String GPU_MEMORY = "gpu_memory";
  /** Only in the warmup benchmark: the first iteration whose latency is at the steady state. */
  public static final String STABILIZATION_ITERATION = "stabilization_iteration";

  /** NTPOT = E2E / N_out per request (prefill included). */
  public static final String NTPOT_MS = "ntpot_ms";
  /** The largest inter-chunk gap of each request (its worst stall). */
  public static final String ICG_MAX_MS = "icg_max_ms";
  /** 1 / TPOT per request, in tokens/s. */
  public static final String DECODE_RATE_TPS = "decode_rate_tps";
  public static final String TOTAL_TOKEN_THROUGHPUT = "total_token_throughput";
  public static final String TOTAL_PROMPT_TOKENS = "total_prompt_tokens";
  /** Requests with fewer than two output tokens, which have no TPOT. */
  public static final String TPOT_EXCLUDED = "tpot_excluded";
  public static final String ERROR_COUNT = "error_count";
  public static final String ERROR_RATE = "error_rate";
  /**
   * t_connected − t_connect_start of every measured request whose own connection opened (TCP and TLS
   * handshakes); {@code null} when none opened one (a pooled client). Not in TTFT, which starts at t_send.
   */
  public static final String CONNECT_MS = "connect_ms";
  /** The measurement window in seconds: [first t_send, last t_end] of the measured requests. */
  public static final String WINDOW_S = "window_s";
  /** Open loop only: t_send - t_sched, the client's own lag. */
  public static final String QUEUEING_DELAY_MS = "queueing_delay_ms";
  /** Open loop only: t_end - t_sched, latency corrected for coordinated omission. */
  public static final String LATENCY_FROM_SCHEDULE_MS = "latency_from_schedule_ms";
  /** With SLOs: good requests per second of the window. */
  public static final String GOODPUT = "goodput";
  /** With SLOs: good requests / all requests sent. */
  public static final String SLO_ATTAINMENT = "slo_attainment";
  public static final String SLO = "slo";
  /** The engine's own timings where it reports them (llama.cpp): prompt_ms and decode_rate_tps distributions. */
  public static final String SERVER_TIMINGS = "server_timings";
  /**
   * Σ prompt tokens the engine took from its prompt cache, over the measured requests that reported
   * it (llama.cpp, vLLM with prompt token details); {@code null} when none did. Per request in
   * requests.jsonl.gz.
   */
  public static final String CACHED_PROMPT_TOKENS = "cached_prompt_tokens";
  /**
   * cached_prompt_tokens / Σ prompt tokens of the same requests (0..1); {@code null} when no request
   * reported its cached tokens.
   */
  public static final String CACHE_HIT_FRACTION = "cache_hit_fraction";
  /** The achieved request rate of an open-loop run: requests sent / span of their send times. */
  public static final String ACHIEVED_RATE = "achieved_rate";

  /**
   * The client's own CPU over the measured requests: {@code cpu_s}, {@code cores} it may run on,
   * {@code utilisation} (cpu_s / (window_s × cores)), {@code cores_idle} (idle share of those
   * cores), {@code runnable_wait_s} (time its threads waited for a core), {@code engine_cpu_s} (the
   * CPU of the engine svc started), {@code cores_idle_without_engine} (the idle share with the
   * engine's CPU on those cores counted as idle) and {@code window_s}; a figure the system cannot
   * give is {@code null} and {@code reason} says why.
   */
  public static final String CLIENT_CPU = "client_cpu";
  public static final String CLIENT_CPU_S = "cpu_s";
  public static final String CLIENT_CORES = "cores";
  public static final String CLIENT_UTILISATION = "utilisation";
  public static final String CLIENT_CORES_IDLE = "cores_idle";
  public static final String CLIENT_RUNNABLE_WAIT_S = "runnable_wait_s";
  public static final String CLIENT_ENGINE_CPU_S = "engine_cpu_s";
  public static final String CLIENT_CORES_IDLE_WITHOUT_ENGINE = "cores_idle_without_engine";
  public static final String CLIENT_CPU_REASON = "reason";

  /** Why a result (or a sweep step) is {@code "valid": false}: the client, not the engine, was the bottleneck. */
  public static final String INVALID_REASON = "invalid_reason";
  /**
   * Only under the sweep load: one object per step, in the order run ({@link #SWEEP_STEP} and, for
   * open-loop steps, {@link #SWEEP_OPEN_LOOP_STEP}); the other metrics are those of the
   * max-throughput step.
   */
  public static final String SWEEP = "sweep";
  /** Only under the sweep load, when it ran no open-loop steps: why (the engine does not batch). */
  public static final String SWEEP_NOTE = "sweep_note";

  /** The keys of every sweep step ({@code load} is the step's wire name, e.g. {@code poisson:3.2}). */
  public static final List<String> SWEEP_STEP = List.of(LOAD, REQUEST_THROUGHPUT, OUTPUT_TOKEN_THROUGHPUT, TTFT_MS,
      TPOT_MS, E2E_MS, TOTAL_ITERATIONS, ERROR_COUNT, VALID);
  /** The further keys of an open-loop sweep step. */
  public static final List<String> SWEEP_OPEN_LOOP_STEP = List.of(ACHIEVED_RATE, QUEUEING_DELAY_MS,
      LATENCY_FROM_SCHEDULE_MS);

  /** {@code token_count_source} when the engine reported usage. */
  public static final String TOKEN_COUNT_USAGE = "usage";
  /** {@code token_count_source} when tokens were counted from stream chunks. */
  public static final String TOKEN_COUNT_CHUNKS = "chunks";

  /** The metrics of the throughput, latency and memory benchmarks. */
  public static final List<String> PERFORMANCE = List.of(AVG_TPS, OUTPUT_TOKEN_THROUGHPUT, REQUEST_THROUGHPUT, TTFT_MS,
      TPOT_MS, E2E_MS, ICG_MS, TOTAL_ITERATIONS, TOTAL_TOKENS_GENERATED, TOKEN_COUNT_SOURCE, GPU_MEMORY);

  /** The metrics of the warmup benchmark: the performance metrics and the stabilization iteration. */
  public static final List<String> WARMUP = concat(PERFORMANCE, STABILIZATION_ITERATION);

  /** The performance metrics that are distributions, each summarised with {@link #STATISTICS}. */
  public static final List<String> DISTRIBUTIONS = List.of(TTFT_MS, TPOT_MS, E2E_MS, ICG_MS);

  // --- a distribution's summary ---

  public static final String MEAN = "mean";
  public static final String P50 = "p50";
  public static final String P90 = "p90";
  public static final String P95 = "p95";
  public static final String P99 = "p99";
  public static final String MIN = "min";
  public static final String MAX = "max";
  public static final String STD = "std";

  /** The keys of every distribution summary. */
  public static final List<String> STATISTICS = List.of(MEAN, P50, P90, P95, P99, MIN, MAX, STD);

  /** The percentiles of a summary, lowest first. */
  public static final List<String> PERCENTILES = List.of(P50, P90, P95, P99);

  /** The summary keys whose values never decrease in this order: min ≤ p50 ≤ p90 ≤ p95 ≤ p99 ≤ max. */
  public static final List<String> ASCENDING = List.of(MIN, P50, P90, P95, P99, MAX);

  // --- GPU memory (docs/metrics.md, "GPU memory") ---

  public static final String PEAK_MEMORY_MB = "peak_memory_mb";
  public static final String AVG_MEMORY_MB = "avg_memory_mb";
  public static final String VRAM_UTILIZATION_PCT = "vram_utilization_pct";
  /** A list of {@code [t_ms, used_mb]} pairs, one every {@link #GPU_SAMPLE_INTERVAL_MS}. */
  public static final String SAMPLES = "samples";
  public static final long GPU_SAMPLE_INTERVAL_MS = 100;
  /**
   * Only where the figures could not be measured (no GPU): why; the three figures are then
   * {@code null} and {@code samples} is empty, never zeros that look real.
   */
  public static final String GPU_MEMORY_REASON = "reason";

  /** The keys of {@code gpu_memory}. */
  public static final List<String> GPU_MEMORY_KEYS = List.of(PEAK_MEMORY_MB, AVG_MEMORY_MB, VRAM_UTILIZATION_PCT,
      SAMPLES);

  // --- quality metrics ---

  public static final String ACCURACY = "accuracy";
  public static final String CORRECT = "correct";
  public static final String TOTAL = "total";

  /** The metrics of the quality benchmarks: accuracy (0..1), correct, total. */
  public static final List<String> QUALITY = List.of(ACCURACY, CORRECT, TOTAL);

  // --- system_info ---

  public static final String GPU = "gpu";
  public static final String CPU = "cpu";
  public static final String RAM_GB = "ram_gb";
  public static final String CUDA_VERSION = "cuda_version";
  public static final String DRIVER_VERSION = "driver_version";
  public static final String OS = "os";
  public static final String ENVIRONMENT_TYPE = "environment_type";
  public static final String FINGERPRINT = "fingerprint";

  /** The keys of {@code system_info}. */
  public static final List<String> SYSTEM_INFO_KEYS = List.of(GPU, CPU, RAM_GB, CUDA_VERSION, DRIVER_VERSION, OS,
      ENVIRONMENT_TYPE, FINGERPRINT);

  public static final String GPU_MODEL = "model";
  public static final String VRAM_GB = "vram_gb";
  public static final String GPU_COUNT = "count";
  public static final String COMPUTE_CAPABILITY = "compute_capability";

  /** The keys of {@code system_info.gpu}; {@code compute_capability} is {@code [major, minor]}. */
  public static final List<String> SYSTEM_GPU_KEYS = List.of(GPU_MODEL, VRAM_GB, GPU_COUNT, COMPUTE_CAPABILITY);

  public static final String CPU_MODEL = "model";
  public static final String CPU_CORES = "cores";
  public static final String CPU_THREADS = "threads";

  /** The keys of {@code system_info.cpu}. */
  public static final List<String> SYSTEM_CPU_KEYS = List.of(CPU_MODEL, CPU_CORES, CPU_THREADS);

  private MetricKeys() {
  }

  /**
   * The metric keys of one benchmark (a canonical name or an alias): {@link #QUALITY},
   * {@link #WARMUP} or {@link #PERFORMANCE}; empty for an unknown benchmark.
   */
  public static Optional<List<String>> metricsOf(String benchmark) {
    return Benchmarks.canonical(benchmark).map(name -> {
      if (Benchmarks.QUALITY.contains(name)) {
        return QUALITY;
      }
      return name.equals("warmup") ? WARMUP : PERFORMANCE;
    });
  }

  private static List<String> concat(List<String> head, String tail) {
    List<String> all = new ArrayList<>(head);
    all.add(tail);
    return List.copyOf(all);
  }
}
