package dev.svc.engines.lifecycle;

import dev.svc.engines.Compatibility;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.NativeCommand;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs inference engines as local processes, for hosts without Docker ({@code svc run --native}):
 * compatibility (the model's format; there is no image, so no platform check) → start the
 * engine's native command from the catalog ({@link NativeCommand}: the binary on {@code PATH} or
 * at its path, listening on 127.0.0.1 at the launch's port, with the launch's environment; its
 * output goes to the log as {@value #OUTPUT_TAG} lines) → health check as for containers → the
 * benchmark → stop (SIGTERM, then SIGKILL after the grace period), after an error too, and from a
 * shutdown hook when the JVM exits on SIGINT/SIGTERM.
 *
 * <p>A blocking API, like {@link EngineLifecycle}, sharing its one-engine-at-a-time rule, its
 * health check, its redaction of environment values and its error messages.
 */
public final class NativeLifecycle implements EngineRunner {

  /** The tag of the lines the engine process writes (stdout and stderr). */
  public static final String OUTPUT_TAG = "[engine]";

  private final EngineRun stages;
  private final Duration stopGrace;
  private final BinaryLookup lookup;

  /**
   * @param healthPolicy health-check intervals and timeout; {@link HealthPolicy#DEFAULT} in production
   * @param stopGrace how long the engine gets to exit after SIGTERM; {@link EngineRunner#STOP_GRACE} in production
   */
  public NativeLifecycle(HealthPolicy healthPolicy, Duration stopGrace) {
    this.stages = new EngineRun(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build(), healthPolicy);
    this.stopGrace = stopGrace;
    this.lookup = BinaryLookup.system();
  }

  /** A native lifecycle with the default health policy and stop grace period. */
  public static NativeLifecycle create() {
    return new NativeLifecycle(HealthPolicy.DEFAULT, STOP_GRACE);
  }

  /** Why the engine cannot run as a local process, or empty when it can. */
  public static Optional<String> unavailableReason(EngineSpec engine) {
    if (engine.nativeCommand().isPresent()) {
      return Optional.empty();
    }
    return Optional.of(engine.name() + " cannot run as a local process: the engine catalog gives it no native command"
        + " (engines." + engine.name() + ".native in engines.yaml). Run it yourself and pass its URL with --endpoint.");
  }

  /**
   * Runs one engine as a local process through every stage and returns what the session returned.
   * The process is stopped before this returns or throws.
   *
   * @throws EngineLifecycleException naming the stage that failed (the session's own exception is
   *     its cause); a binary that cannot be found fails the create stage, saying where to set it
   */
  @Override
  public <T> T run(EngineLaunch launch, LogSink sink, EngineSession<T> session) {
    return stages.run(launch, sink, (log, redactor) -> prepare(launch, log), session);
  }

  /** The engine's native command with the model, its name and the port filled in. */
  private EngineInstance prepare(EngineLaunch launch, LogSink log) {
    EngineSpec engine = launch.engine();
    NativeCommand command = engine.nativeCommand().orElseThrow(() ->
        new EngineLifecycleException(LifecycleStage.COMPATIBILITY, unavailableReason(engine).orElseThrow(), null));
    var verdict = Compatibility.checkFormatOnDisk(engine, launch.modelPath());
    EngineRun.requireCompatible(launch.force() ? verdict.bypassed() : verdict,
        engine.name() + " can run " + launch.modelPath().getFileName() + " as a local process", log);

    String create = LifecycleStage.CREATE.tag() + " ";
    Path binary = lookup.locate(engine.name(), command.binary());
    launch.quantization().ifPresent(q -> log.log(create + "Quantization '" + q
        + "' is not passed: a native command has no quantization argument; add it to the engine's native args"));
    List<String> args = new ArrayList<>(command.expand(launch.modelPath().toString(), launch.modelName(), launch.port()));
    args.addAll(launch.extraArgs());
    return new ProcessInstance(binary, args, launch.environment(), stopGrace);
  }
}
