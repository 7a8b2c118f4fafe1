package dev.svc.bench.cli;

import dev.svc.bench.hardware.MemoryTracker;
import dev.svc.bench.hardware.NvidiaSmi;
import dev.svc.bench.hardware.SystemInfo;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.measure.EngineCpu;
import dev.svc.bench.measure.Slo;
import dev.svc.bench.run.BenchmarkOutcome;
import dev.svc.bench.run.EngineTarget;
import dev.svc.bench.run.ModelDigest;
import dev.svc.bench.run.RunOutput;
import dev.svc.bench.run.RunProvenance;
import dev.svc.bench.run.RunRequest;
import dev.svc.bench.run.SuiteRun;
import dev.svc.bench.suite.BenchmarkSettings;
import dev.svc.bench.suite.Suite;
import dev.svc.bench.suite.SuiteCatalog;
import dev.svc.core.CpuArch;
import dev.svc.core.domain.Benchmarks;
import dev.svc.core.home.SvcHome;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.lifecycle.DockerClients;
import dev.svc.engines.lifecycle.EngineIdentity;
import dev.svc.engines.lifecycle.EngineImages;
import dev.svc.engines.lifecycle.EngineLaunch;
import dev.svc.engines.lifecycle.EngineLifecycle;
import dev.svc.engines.lifecycle.EngineLifecycleException;
import dev.svc.engines.lifecycle.EngineRunner;
import dev.svc.engines.lifecycle.LoopbackPort;
import dev.svc.engines.lifecycle.NativeLifecycle;
import dev.svc.engines.lifecycle.RunningEngine;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code svc run}: start the engine, wait for health, run the suite, track GPU memory, stop the
 * engine, write metrics.json and its companions. Exit 0 when every benchmark passed, 1 when one
 * failed or the engine could not be run, 2 for a usage mistake.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Benchmark a model on an engine: start it in a container (or as a local process), run a suite, write metrics.json.")
public final class RunCommand implements Callable<Integer> {

  /** What metrics.json's engine_image says of an engine benchmarked at --endpoint: this, then the URL as given. */
  private static final String ENDPOINT_SOURCE = "endpoint:";

  /** With --native, the engine process's output, in the results directory. */
  public static final String ENGINE_LOG = "engine.log";

  @Option(names = {"-m", "--model"}, required = true, description = "Model path (a .gguf file or a model directory).")
  Path model;

  @Option(names = {"-e", "--engine"}, required = true, description = "Engine: vllm, tgi, llama_cpp or ollama.")
  String engine;

  @Option(names = {"-s", "--suite"}, defaultValue = "quick", description = "Suite: quick, performance, standard or one of ~/.svc/suites (default: ${DEFAULT-VALUE}).")
  String suite;

  @Option(names = {"-b", "--benchmark"}, description = "Run only this benchmark of the suite.")
  String benchmark;

  @Option(names = {"-o", "--out"}, description = "Output directory (default: ~/.svc/results/<model>/<engine>/<timestamp>).")
  Path out;

  @Option(names = "--auto-pull", description = "Pull the engine's image when it is not on this host.")
  boolean autoPull;

  @Option(names = "--load", description = "Load model for the performance benchmarks: sequential, concurrency:N, rate:R, poisson:R,"
      + " or sweep (sequential, then max throughput with the benchmark's concurrency or 16 workers, then Poisson"
      + " rates between the two).")
  String load;

  @Option(names = "--slo", description = "Objectives for goodput, e.g. ttft_ms=500,tpot_ms=30.")
  String slo;

  @Option(names = "--seed", description = "Seed of prompts and arrival times: a run given the same seed sends the same"
      + " prompts (default: one drawn for each run, so that its prompts are new to the engine; metrics.json records it).")
  Long givenSeed;

  @Option(names = "--prefix-tokens", paramLabel = "N", description = "Open every prompt of the performance benchmarks with"
      + " the same N words (about one token each), as chat traffic with a shared system prompt does; replaces the"
      + " suite's prefix_tokens (default: the suite's, else 0: every prompt new).")
  Integer prefixTokens;

  @Option(names = "--repeat", paramLabel = "N", description = "Run each performance benchmark N times with new prompts"
      + " each time and report every figure as the mean of the runs with its 95 %% confidence interval; replaces the"
      + " suite's repeat (default: the suite's, else 1). The warmup and quality benchmarks and sweeps run once.")
  Integer repeat;

  @Option(names = "--dataset-dir", description = "Quality datasets directory (default: ~/.svc/datasets).")
  Path datasetDir;

  @Option(names = "--endpoint", paramLabel = "URL", description = "Benchmark the engine already serving at this URL instead"
      + " of starting one: http:// or https://, with a port (default 80 or 443) and the path its API sits under, e.g."
      + " https://gpu-1:8443/llm (requests go to /llm/v1/completions; a URL ending in /v1 is not repeated).")
  String endpoint;

  @Option(names = "--ca", paramLabel = "FILE", description = "CA certificate(s) (PEM) that an https --endpoint's certificate"
      + " must chain to, in place of the system's trusted CAs.")
  Path ca;

  @Option(names = "--model-name", description = "The model's name in requests (default: the model's file name).")
  String modelName;

  @Option(names = "--force", description = "Run even when the engine cannot load the model's format or platform.")
  boolean force;

  @Option(names = "--native", description = "Run the engine as a local process instead of a container, for hosts without"
      + " Docker: the engine's native command in engines.yaml (e.g. llama-server on the PATH), on 127.0.0.1 and a free port.")
  boolean nativeProcess;

  @Option(names = "--engine-port", description = "Port the engine serves on (containers share the host's network): 0 picks"
      + " a free one, so that two runs on one host do not collide (default: the engine's own port, e.g. 8000; a free"
      + " one with --native).")
  Integer enginePort;

  @Option(names = "--home", hidden = true, description = "svc home directory (default: ~/.svc).")
  Path home;

  @Override
  public Integer call() throws Exception {
    // the Docker transport's retry notices (INFO) would land in the test's log, among the run's own lines
    System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.hc", "warn");
    long seed = givenSeed != null ? givenSeed : RunRequest.randomSeed();
    SvcHome svcHome = home != null ? new SvcHome(home) : SvcHome.defaultHome();
    EngineSpec spec;
    List<BenchmarkSettings> benchmarks;
    RunRequest request;
    EngineTarget atEndpoint = null;
    try {
      spec = EngineCatalog.load(svcHome).find(engine).orElseThrow(() ->
          new IllegalArgumentException("Unknown engine '" + engine + "'; see svc engines list"));
      Suite chosen = SuiteCatalog.load(svcHome.root().resolve("suites")).suite(suite).orElseThrow(() ->
          new IllegalArgumentException("Unknown suite '" + suite + "'"));
      String only = benchmark == null ? null : Benchmarks.canonical(benchmark).orElseThrow(() ->
          new IllegalArgumentException("Unknown benchmark '" + benchmark + "'"));
      LoadModel loadModel = load == null ? null : LoadModel.parse(load);
      if (prefixTokens != null && (prefixTokens < 0 || prefixTokens > BenchmarkSettings.MAX_PREFIX_TOKENS)) {
        throw new IllegalArgumentException("--prefix-tokens must be from 0 to " + BenchmarkSettings.MAX_PREFIX_TOKENS);
      }
      if (repeat != null && (repeat < 1 || repeat > BenchmarkSettings.MAX_REPEAT)) {
        throw new IllegalArgumentException("--repeat must be from 1 to " + BenchmarkSettings.MAX_REPEAT);
      }
      benchmarks = SuiteRun.select(chosen, only, loadModel, prefixTokens, repeat);
      if (nativeProcess) {
        requireNativeCombination(spec);
      }
      if (enginePort != null && (enginePort < 0 || enginePort > 65535)) {
        throw new IllegalArgumentException("--engine-port must be from 0 (a free port) to 65535");
      }
      Path modelPath = model.toAbsolutePath().normalize();
      if (endpoint != null) {
        atEndpoint = EndpointUrl.target(endpoint, ca, modelName != null ? modelName : defaultModelName(modelPath),
            EngineCodec.forApi(spec.api()), ENDPOINT_SOURCE + endpoint);
      } else if (ca != null) {
        throw new IllegalArgumentException("--ca trusts the CA of an https --endpoint; without --endpoint there is"
            + " nothing to trust it for");
      }
      request = new RunRequest(modelPath, engine, suite, only, out, autoPull, loadModel, Slo.parse(slo), seed,
          datasetDir != null ? datasetDir : svcHome.datasets(), endpoint == null ? null : URI.create(endpoint), force,
          givenSeed != null);
      if (endpoint == null && !Files.exists(request.model())) {
        throw new IllegalArgumentException("Model " + request.model() + " does not exist");
      }
    } catch (IllegalArgumentException e) {
      System.err.println("svc run: " + e.getMessage());
      return 2;
    }

    System.out.println(request.seedGiven() ? "Seed " + seed
        : "Seed " + seed + " (drawn for this run; --seed " + seed + " sends the same prompts again)");
    Path dir = out != null ? out : svcHome.results().resolve(safe(request.model().getFileName().toString()))
        .resolve(engine).resolve(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(ZonedDateTime.now(ZoneOffset.UTC)));
    NvidiaSmi smi = NvidiaSmi.system();
    NvidiaSmi.Listing gpus = smi.gpus(); // once: the fingerprint and the memory tracker both need it
    JsonObject systemInfo = SystemInfo.collect(smi, gpus).toJson();
    MemoryTracker memory = MemoryTracker.detect(smi, gpus);
    String startedAt = SuiteRun.startedAt();
    long startNanos = System.nanoTime();
    // the native epoll transport where there is one: reading a stream costs the client less
    Vertx vertx = Vertx.vertx(new io.vertx.core.VertxOptions().setPreferNativeTransport(true));
    SuiteRun runner = new SuiteRun(vertx, memory, System.out);
    SuiteRun.Outcome outcome = null;
    EngineTarget[] target = new EngineTarget[1];
    RunningEngine[] started = new RunningEngine[1];
    String failure = null;
    try {
      if (atEndpoint != null) {
        target[0] = atEndpoint;
        outcome = runner.run(target[0], EngineCpu.unknown(null), benchmarks, request);
      } else {
        outcome = startingTheEngine(spec, request, benchmarks, runner, target, started, dir);
      }
    } catch (EngineLifecycleException | IllegalStateException | IOException e) {
      failure = e.getMessage();
      System.err.println("svc run: " + failure);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    List<BenchmarkOutcome> ran = outcome == null ? List.of() : outcome.benchmarks();
    RunProvenance provenance = provenance(request, runner, started[0], svcHome,
        benchmarks.stream().mapToInt(BenchmarkSettings::runs).max().orElse(RunProvenance.ONE_REPEAT));
    JsonObject metrics = SuiteRun.metrics(request, target[0], provenance, ran, systemInfo, suite, startedAt, seconds,
        failure);
    JsonObject config = new JsonObject().put("model", request.model().toString()).put("engine", engine).put("suite", suite)
        .put("benchmark", request.benchmark()).put("load", load).put("slo", slo).put("seed", seed)
        .put("dataset_dir", request.datasetDir().toString()).put("endpoint", endpoint)
        .put("force", force).put("auto_pull", autoPull).put("native", nativeProcess);
    config.put("seed_given", request.seedGiven()).put("prefix_tokens", prefixTokens).put("repeat", repeat);
    RunOutput.write(dir, metrics, config, outcome == null ? java.util.Map.of() : outcome.requests());
    System.out.println("Results: " + dir);
    return SuiteRun.passed(ran, failure) ? 0 : 1;
  }

  /**
   * What the run measured: the engine's version and launch, and the model's digest, read after the
   * engine stopped so that hashing a large model takes no CPU from the measurements.
   */
  private static RunProvenance provenance(RunRequest request, SuiteRun runner, RunningEngine engine, SvcHome home,
      int repeats) {
    String modelDigest = null;
    String reason = null;
    if (!Files.exists(request.model())) {
      reason = "the model path " + request.model() + " is not on this host";
    } else {
      try {
        modelDigest = new ModelDigest(home.cache().resolve(ModelDigest.CACHE_FILE)).of(request.model());
      } catch (IOException | RuntimeException e) {
        reason = "the model could not be read: " + e.getMessage();
      }
    }
    return new RunProvenance(runner.engineVersion(),
        engine == null ? null : engine.launchArgs(), engine == null ? null : engine.imageDigest(), modelDigest, reason,
        repeats);
  }

  /** --native starts the engine itself: not with an endpoint, no image to pull, and only where engines.yaml says how. */
  private void requireNativeCombination(EngineSpec spec) {
    if (endpoint != null) {
      throw new IllegalArgumentException("--native starts the engine and --endpoint benchmarks one already running: give one");
    }
    if (autoPull) {
      throw new IllegalArgumentException("--auto-pull pulls a container image; --native runs no container");
    }
    NativeLifecycle.unavailableReason(spec).ifPresent(reason -> {
      throw new IllegalArgumentException(reason);
    });
  }

  /** Starts the engine (in a container, or as a local process with --native), runs the suite against it, stops it. */
  private SuiteRun.Outcome startingTheEngine(EngineSpec spec, RunRequest request, List<BenchmarkSettings> benchmarks,
      SuiteRun runner, EngineTarget[] target, RunningEngine[] started, Path dir) throws IOException {
    EngineLaunch.Builder launch = EngineLaunch.builder(spec, request.model()).force(request.force());
    if (modelName != null) {
      launch.modelName(modelName);
    }
    String image = null;
    if (enginePort != null && enginePort > 0) {
      launch.port(enginePort);
    } else if (nativeProcess || enginePort != null) {
      launch.port(LoopbackPort.free());
    }
    if (!nativeProcess) {
      image = requireImage(spec);
    }
    String containerImage = image;
    try (EngineRunner lifecycle = nativeProcess ? NativeLifecycle.create() : EngineLifecycle.connect();
        LifecycleLog log = new LifecycleLog(System.out, nativeProcess ? dir.resolve(ENGINE_LOG) : null)) {
      return lifecycle.run(launch.build(), log, engine -> {
        started[0] = engine;
        String source = engine.identity() instanceof EngineIdentity.LocalProcess process
            ? "native:" + process.binary() : containerImage;
        target[0] = new EngineTarget("127.0.0.1", engine.port(), engine.modelName(), engine.codec(), source);
        return runner.run(target[0], engineCpu(engine.identity()), benchmarks, request);
      });
    }
  }

  /** Where the CPU of the engine this run started is read: its process tree, or its container's cgroup. */
  private static EngineCpu engineCpu(EngineIdentity identity) {
    if (identity instanceof EngineIdentity.LocalProcess process) {
      return EngineCpu.processTree(process.pid());
    }
    return EngineCpu.container(((EngineIdentity.Container) identity).id());
  }

  /** The engine's image for this machine, which must be on this host unless --auto-pull may pull it. */
  private String requireImage(EngineSpec spec) throws IOException {
    CpuArch arch = CpuArch.ofThisMachine();
    String image = spec.image(arch).orElseThrow(() -> new IllegalStateException(spec.name() + " has no image for " + arch));
    try (var docker = DockerClients.connect()) {
      if (!autoPull && !new EngineImages(docker).isPresent(image)) {
        throw new IllegalStateException("The image " + image + " is not on this host: pass --auto-pull, or run svc engines setup "
            + spec.name());
      }
    }
    return image;
  }

  private static String defaultModelName(Path model) {
    Path name = model.getFileName();
    return name == null ? "model" : name.toString().replaceFirst("(?i)\\.gguf$", "");
  }

  private static String safe(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
