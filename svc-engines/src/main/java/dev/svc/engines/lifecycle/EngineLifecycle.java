package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.DockerClient;
import dev.svc.engines.Compatibility;
import dev.svc.engines.EngineSpec;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

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
public final class EngineLifecycle implements EngineRunner {

  private static final AtomicLong LAST_NAME_MILLIS = new AtomicLong();

  private final DockerClient docker;
  private final boolean ownsClient;
  private final GpuProbe gpuProbe;
  private final EngineImages images;
  private final EngineRun stages;
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
    this.images = new EngineImages(docker);
    this.stages = new EngineRun(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build(), healthPolicy);
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
  @Override
  public <T> T run(EngineLaunch launch, LogSink sink, EngineSession<T> session) {
    return stages.run(launch, sink, (log, redactor) -> prepare(launch, log, redactor), session);
  }

  /** Compatibility, then the image, then the container's plan. */
  private EngineInstance prepare(EngineLaunch launch, LogSink log, Redactor redactor) {
    EngineSpec engine = launch.engine();
    String image = checkCompatibility(launch, log);
    try {
      images.ensure(image, log);
    } catch (RuntimeException e) {
      throw new EngineLifecycleException(LifecycleStage.IMAGE, redactor.apply(EngineRun.message(e)), e);
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
    return new ContainerInstance(docker, plan);
  }

  /** Stage 0: the shared compatibility rules, then the image for the architecture. */
  private String checkCompatibility(EngineLaunch launch, LogSink log) {
    EngineSpec engine = launch.engine();
    EngineRun.requireCompatible(Compatibility.checkOnDisk(engine, launch.arch(), launch.modelPath(), launch.force()),
        engine.name() + " can run " + launch.modelPath().getFileName() + " on " + launch.arch().displayName(), log);
    return engine.image(launch.arch()).orElseThrow(() -> new EngineLifecycleException(LifecycleStage.COMPATIBILITY,
        engine.name() + " has no image for " + launch.arch().displayName() + ", so it cannot run here even when forced.",
        null));
  }

  /** {@code kitt-<epoch ms>}, strictly increasing within this JVM. */
  private String nextName() {
    long now = clock.millis();
    long millis = LAST_NAME_MILLIS.updateAndGet(last -> Math.max(last + 1, now));
    return "kitt-" + millis;
  }

  /** Closes the Docker client when this lifecycle made it ({@link #connect()}). */
  @Override
  public void close() throws IOException {
    if (ownsClient) {
      docker.close();
    }
  }
}
