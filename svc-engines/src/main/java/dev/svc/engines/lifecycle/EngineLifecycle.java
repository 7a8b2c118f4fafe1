package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.svc.engines.Compatibility;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.Verdict;
import dev.svc.engines.codec.EngineCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs inference engines in containers, through the mission's ordered stages: compatibility →
 * image check (pull from the image's registry when absent, with progress lines) → create and start
 * ({@code --network host}, {@code --name kitt-<timestamp>}, {@code -v <model_dir>:/models}, the
 * engine's flags, GPUs only where the host has them) → health check (backing off per
 * {@link HealthPolicy}; 503 while loading is retried; on timeout or exit the error carries the
 * container's last log lines) → the benchmark ({@link EngineSession}) → stop then remove, after an
 * error too, and from a shutdown hook when the JVM exits on SIGINT/SIGTERM.
 *
 * <p><b>This is a blocking API.</b> Every method talks to dockerd and to the engine synchronously
 * and may take minutes: call it from a worker thread (Vert.x {@code executeBlocking} or a
 * {@code WorkerExecutor}), never from an event loop. It refuses to run on a Vert.x event-loop
 * thread.
 *
 * <p>One engine runs at a time in a JVM (engines share the host's network, so they would fight
 * over ports): a second {@link #run} waits for the first to finish. {@link #runSuite} runs a
 * suite's engines one after another. Every line goes through the caller's {@link LogSink} with the
 * container's environment values redacted; error messages are redacted the same way.
 */
public final class EngineLifecycle implements AutoCloseable {

  /** How many of the container's last log lines an error carries. */
  public static final int LOG_TAIL_LINES = 20;

  private static final ReentrantLock ONE_ENGINE_AT_A_TIME = new ReentrantLock(true);
  private static final AtomicLong LAST_NAME_MILLIS = new AtomicLong();

  private final DockerClient docker;
  private final boolean ownsClient;
  private final GpuProbe gpuProbe;
  private final HealthPolicy healthPolicy;
  private final EngineImages images;
  private final HttpClient http;
  private final Clock clock;

  /**
   * A lifecycle on a client the caller owns (and closes).
   *
   * @param gpuProbe tells whether to request GPUs; {@link GpuProbe#system()} in production
   * @param healthPolicy health-check intervals and timeout; {@link HealthPolicy#DEFAULT} in production
   */
  public EngineLifecycle(DockerClient docker, GpuProbe gpuProbe, HealthPolicy healthPolicy) {
    this(docker, false, gpuProbe, healthPolicy, Clock.systemUTC());
  }

  private EngineLifecycle(
      DockerClient docker, boolean ownsClient, GpuProbe gpuProbe, HealthPolicy healthPolicy, Clock clock) {
    this.docker = docker;
    this.ownsClient = ownsClient;
    this.gpuProbe = gpuProbe;
    this.healthPolicy = healthPolicy;
    this.images = new EngineImages(docker);
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    this.clock = clock;
  }

  /** A lifecycle with its own Docker client, the real GPU probe and the default health policy. */
  public static EngineLifecycle connect() {
    return new EngineLifecycle(DockerClients.connect(), true, GpuProbe.system(), HealthPolicy.DEFAULT, Clock.systemUTC());
  }

  /**
   * Runs one engine through every stage and returns what the session returned. The container is
   * stopped and removed before this returns or throws.
   *
   * @throws EngineLifecycleException naming the stage that failed (the session's own exception is
   *     its cause)
   */
  public <T> T run(EngineLaunch launch, LogSink sink, EngineSession<T> session) {
    requireWorkerThread();
    Redactor redactor = Redactor.of(launch.environment());
    LogSink log = redactor.wrap(sink);
    if (!ONE_ENGINE_AT_A_TIME.tryLock()) {
      log.log(LifecycleStage.CREATE.tag() + " Waiting for the engine run before this one to finish");
      try {
        ONE_ENGINE_AT_A_TIME.lockInterruptibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new EngineLifecycleException(LifecycleStage.CREATE, "Interrupted while waiting for the engine before.", e);
      }
    }
    try {
      return runAlone(launch, log, redactor, session);
    } finally {
      ONE_ENGINE_AT_A_TIME.unlock();
    }
  }

  /**
   * Runs a suite's engines one after another, each through every stage (its container removed
   * before the next is created); a failed engine does not stop the ones after it.
   */
  public <T> List<EngineOutcome<T>> runSuite(List<EngineLaunch> launches, LogSink sink, EngineSession<T> session) {
    List<EngineOutcome<T>> outcomes = new ArrayList<>();
    for (int i = 0; i < launches.size(); i++) {
      EngineLaunch launch = launches.get(i);
      String engine = launch.engine().name();
      sink.log("[suite] Engine " + (i + 1) + " of " + launches.size() + ": " + engine);
      try {
        outcomes.add(new EngineOutcome<>(engine, run(launch, sink, session), null));
      } catch (EngineLifecycleException e) {
        sink.log("[suite] " + engine + " failed: " + firstLine(e.getMessage()));
        outcomes.add(new EngineOutcome<>(engine, null, e));
        if (Thread.currentThread().isInterrupted()) {
          break;
        }
      }
    }
    return outcomes;
  }

  private <T> T runAlone(EngineLaunch launch, LogSink log, Redactor redactor, EngineSession<T> session) {
    EngineSpec engine = launch.engine();
    String image = checkCompatibility(launch, log);
    try {
      images.ensure(image, log);
    } catch (RuntimeException e) {
      throw new EngineLifecycleException(LifecycleStage.IMAGE, redactor.apply(message(e)), e);
    }

    String create = LifecycleStage.CREATE.tag() + " ";
    GpuAvailability gpus = gpuProbe.detect();
    List<String> notes = new ArrayList<>();
    ContainerPlan plan;
    try {
      plan = ContainerPlanner.plan(launch, image, nextName(), gpus, notes);
    } catch (IllegalArgumentException e) {
      throw new EngineLifecycleException(LifecycleStage.CREATE, redactor.apply(e.getMessage()), e);
    }
    notes.forEach(note -> log.log(create + note));
    if (plan.requestGpus()) {
      log.log(create + "Requesting all GPUs (--gpus all): " + gpus.detail());
    } else if (engine.containerFlags().stream().anyMatch(flag -> flag.startsWith("--gpus"))) {
      log.log(create + "No GPUs requested: " + gpus.detail());
    } else {
      log.log(create + "No GPUs requested: " + engine.name() + " has no --gpus flag in the engine catalog");
    }

    ContainerReaper reaper = ContainerReaper.instance();
    String containerId = null;
    LifecycleStage stage = LifecycleStage.CREATE;
    EngineLifecycleException failure = null;
    try {
      reaper.track(plan.name(), docker, log);
      containerId = createAndStart(plan, log);
      String id = containerId;
      stage = LifecycleStage.HEALTH;

      URI health = URI.create("http://127.0.0.1:" + launch.port() + engine.healthPath());
      Optional<HealthCheck.Failure> unhealthy = new HealthCheck(http, healthPolicy)
          .await(health, engine.healthSuccess(), () -> exitState(id), log);
      if (unhealthy.isPresent()) {
        List<String> tail = ContainerLogs.tail(docker, id, LOG_TAIL_LINES).stream().map(redactor::apply).toList();
        String why = unhealthy.get().describe(engine.name(), plan.name(), healthPolicy, health);
        String message = redactor.apply(why) + ". Last log lines of " + plan.name() + ":\n  "
            + String.join("\n  ", tail);
        log.log(LifecycleStage.HEALTH.tag() + " " + why + "; the container is stopped and removed");
        throw new EngineLifecycleException(LifecycleStage.HEALTH, message, tail, null);
      }

      RunningEngine running = new RunningEngine(engine, id, plan.name(), launch.port(), launch.modelName(),
          EngineCodec.forApi(engine.api()), plan.requestGpus());
      stage = LifecycleStage.BENCHMARK;
      String bench = LifecycleStage.BENCHMARK.tag() + " ";
      log.log(bench + "Running the benchmark against " + engine.name() + " at " + running.baseUri());
      T result;
      try {
        result = session.run(running);
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        throw new EngineLifecycleException(LifecycleStage.BENCHMARK,
            redactor.apply("The benchmark against " + engine.name() + " failed: " + message(e)), e);
      }
      log.log(bench + "Benchmark finished");
      return result;
    } catch (EngineLifecycleException e) {
      failure = e;
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = new EngineLifecycleException(stage, "The engine run was interrupted.", e);
      throw failure;
    } catch (RuntimeException e) {
      failure = new EngineLifecycleException(stage, redactor.apply(message(e)), e);
      throw failure;
    } finally {
      RuntimeException cleanupError = containerId != null
          ? ContainerCleanup.stopAndRemove(docker, plan.name(), log)
          : removeIfCreated(plan.name());
      reaper.untrack(plan.name());
      if (cleanupError != null) {
        EngineLifecycleException cleanup = new EngineLifecycleException(LifecycleStage.CLEANUP,
            redactor.apply("Removing " + plan.name() + " failed: " + message(cleanupError)), cleanupError);
        if (failure != null) {
          failure.addSuppressed(cleanup);
        } else {
          throw cleanup;
        }
      }
    }
  }

  /** Stage 0: the shared compatibility rules, then the image for the architecture. */
  private String checkCompatibility(EngineLaunch launch, LogSink log) {
    EngineSpec engine = launch.engine();
    String tag = LifecycleStage.COMPATIBILITY.tag() + " ";
    Verdict verdict = Compatibility.checkOnDisk(engine, launch.arch(), launch.modelPath(), launch.force());
    if (!verdict.compatible()) {
      throw new EngineLifecycleException(LifecycleStage.COMPATIBILITY, verdict.reason(), null);
    }
    if (verdict.forced()) {
      log.log(tag + "Forced past the compatibility rules: " + verdict.reason());
    } else {
      log.log(tag + engine.name() + " can run " + launch.modelPath().getFileName() + " on "
          + launch.arch().displayName());
    }
    return engine.image(launch.arch()).orElseThrow(() -> new EngineLifecycleException(LifecycleStage.COMPATIBILITY,
        engine.name() + " has no image for " + launch.arch().displayName() + ", so it cannot run here even when forced.",
        null));
  }

  /** Creates and starts the container, taking the next name if another process holds this one. */
  private String createAndStart(ContainerPlan plan, LogSink log) {
    String tag = LifecycleStage.CREATE.tag() + " ";
    log.log(tag + plan.dockerRunLine());
    String id;
    try {
      var command = docker.createContainerCmd(plan.image())
          .withName(plan.name())
          .withHostConfig(plan.hostConfig())
          .withEnv(plan.environmentList())
          .withLabels(plan.labels())
          .withCmd(plan.args());
      if (!plan.entrypoint().isEmpty()) {
        command.withEntrypoint(plan.entrypoint());
      }
      id = command.exec().getId();
    } catch (ConflictException e) {
      throw new IllegalStateException("A container named " + plan.name() + " already exists.", e);
    }
    log.log(tag + "Created container " + plan.name() + " (id " + shortId(id) + ")");
    docker.startContainerCmd(id).exec();
    log.log(tag + "Started " + plan.name());
    return id;
  }

  /** How the container ended, or empty while it runs. */
  private Optional<String> exitState(String containerId) {
    try {
      InspectContainerResponse.ContainerState state = docker.inspectContainerCmd(containerId).exec().getState();
      if (Boolean.TRUE.equals(state.getRunning())) {
        return Optional.empty();
      }
      String how = "exited with code " + state.getExitCodeLong();
      if (Boolean.TRUE.equals(state.getOOMKilled())) {
        how += " (killed: out of memory)";
      }
      return Optional.of(how);
    } catch (NotFoundException e) {
      return Optional.of("disappeared");
    }
  }

  private RuntimeException removeIfCreated(String name) {
    try {
      docker.removeContainerCmd(name).withForce(true).exec();
      return null;
    } catch (NotFoundException e) {
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  /** {@code kitt-<epoch ms>}, strictly increasing within this JVM. */
  private String nextName() {
    long now = clock.millis();
    long millis = LAST_NAME_MILLIS.updateAndGet(last -> Math.max(last + 1, now));
    return "kitt-" + millis;
  }

  private static void requireWorkerThread() {
    String thread = Thread.currentThread().getName();
    if (thread.startsWith("vert.x-eventloop-thread")) {
      throw new IllegalStateException("The engine lifecycle blocks: run it on a worker thread (executeBlocking), not on "
          + thread + ".");
    }
  }

  private static String message(Throwable e) {
    String own = e.getMessage();
    String root = DockerClients.rootMessage(e);
    if (own == null || own.isBlank()) {
      return root;
    }
    return own.contains(root) ? own : own + " (" + root + ")";
  }

  private static String shortId(String id) {
    return id.length() > 12 ? id.substring(0, 12) : id;
  }

  private static String firstLine(String text) {
    int newline = text == null ? -1 : text.indexOf('\n');
    return newline < 0 ? String.valueOf(text) : text.substring(0, newline);
  }

  /** Closes the Docker client when this lifecycle made it ({@link #connect()}). */
  @Override
  public void close() throws IOException {
    if (ownsClient) {
      docker.close();
    }
  }
}
