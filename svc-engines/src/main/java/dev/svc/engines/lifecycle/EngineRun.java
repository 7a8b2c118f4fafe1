package dev.svc.engines.lifecycle;

import dev.svc.engines.EngineSpec;
import dev.svc.engines.Verdict;
import dev.svc.engines.codec.EngineCodec;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The stages every engine run shares, whether the engine is a container or a local process: one
 * engine at a time per JVM, secrets masked in every line, then start → health (the error carries
 * the engine's last log lines) → the caller's session → stop, after errors too and from the JVM
 * shutdown hook ({@link EngineReaper}).
 */
final class EngineRun {

  /** What a runner does before the shared stages: its own checks and plan, ending in an engine not yet started. */
  @FunctionalInterface
  interface Preparation {
    /**
     * @throws EngineLifecycleException naming the stage that refused the launch
     */
    EngineInstance prepare(LogSink log, Redactor redactor);
  }

  private static final ReentrantLock ONE_ENGINE_AT_A_TIME = new ReentrantLock(true);

  private final HttpClient http;
  private final HealthPolicy healthPolicy;

  EngineRun(HttpClient http, HealthPolicy healthPolicy) {
    this.http = http;
    this.healthPolicy = healthPolicy;
  }

  <T> T run(EngineLaunch launch, LogSink sink, Preparation preparation, EngineSession<T> session) {
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
      return serve(launch, log, redactor, preparation.prepare(log, redactor), session);
    } finally {
      ONE_ENGINE_AT_A_TIME.unlock();
    }
  }

  /**
   * Nothing may listen on the engine's port before it starts: its health check and the benchmark
   * would reach whatever does (another engine, another run's) and measure that instead.
   */
  static void requirePortFree(int port) {
    try (java.net.ServerSocket socket = new java.net.ServerSocket()) {
      // a port left in TIME_WAIT by an earlier engine is free; one something listens on is not
      socket.setReuseAddress(true);
      socket.bind(new java.net.InetSocketAddress(port));
    } catch (java.io.IOException e) {
      throw new EngineLifecycleException(LifecycleStage.CREATE, "Port " + port + " is already in use on this host"
          + " (another engine, or another run's): the engine could not listen there, and its health check would"
          + " reach whatever does. Stop what listens on it, or choose another port (svc run --engine-port).", e);
    }
  }

  private <T> T serve(EngineLaunch launch, LogSink log, Redactor redactor, EngineInstance instance,
      EngineSession<T> session) {
    EngineSpec engine = launch.engine();
    EngineReaper reaper = EngineReaper.instance();
    LifecycleStage stage = LifecycleStage.CREATE;
    EngineLifecycleException failure = null;
    try {
      requirePortFree(launch.port());
      reaper.track(instance, log);
      instance.start(log);
      stage = LifecycleStage.HEALTH;

      URI health = URI.create("http://127.0.0.1:" + launch.port() + engine.healthPath());
      Optional<HealthCheck.Failure> unhealthy = new HealthCheck(http, healthPolicy)
          .await(health, engine.healthSuccess(), instance::exitState, log);
      if (unhealthy.isPresent()) {
        List<String> tail = instance.logTail(EngineRunner.LOG_TAIL_LINES).stream().map(redactor::apply).toList();
        String why = unhealthy.get().describe(engine.name(), instance.label(), healthPolicy, health);
        String message = redactor.apply(why) + ". Last log lines of " + instance.name() + ":\n  "
            + String.join("\n  ", tail);
        log.log(LifecycleStage.HEALTH.tag() + " " + why + "; " + instance.stoppedNote());
        throw new EngineLifecycleException(LifecycleStage.HEALTH, message, tail, null);
      }

      RunningEngine running = new RunningEngine(engine, instance.identity(), launch.port(), launch.modelName(),
          EngineCodec.forApi(engine.api()), instance.gpusRequested(),
          instance.launchArgs().stream().map(redactor::apply).toList(), instance.imageDigest().orElse(null));
      stage = LifecycleStage.BENCHMARK;
      String bench = LifecycleStage.BENCHMARK.tag() + " ";
      log.log(bench + "Running the benchmark against " + engine.name() + " at " + running.baseUri());
      T result = null;
      Exception sessionError = null;
      EngineWatch watch = EngineWatch.start(instance, engine.name());
      try {
        result = session.run(running);
      } catch (Exception e) {
        sessionError = e;
      } finally {
        watch.close();
      }
      Optional<EngineWatch.Lost> lost = watch.verdict();
      if (lost.isPresent()) {
        throw engineLost(lost.get(), instance, redactor, log, sessionError);
      }
      if (sessionError instanceof InterruptedException interrupted) {
        throw interrupted;
      }
      if (sessionError != null) {
        throw new EngineLifecycleException(LifecycleStage.BENCHMARK,
            redactor.apply("The benchmark against " + engine.name() + " failed: " + message(sessionError)), sessionError);
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
      RuntimeException cleanupError = instance.stop(log);
      reaper.untrack(instance);
      if (cleanupError != null) {
        String action = instance.stopAction();
        EngineLifecycleException cleanup = new EngineLifecycleException(LifecycleStage.CLEANUP,
            redactor.apply(Character.toUpperCase(action.charAt(0)) + action.substring(1) + " failed: "
                + message(cleanupError)), cleanupError);
        if (failure != null) {
          failure.addSuppressed(cleanup);
        } else {
          throw cleanup;
        }
      }
    }
  }

  /**
   * The run's failure when the engine died or could no longer be watched mid-benchmark: why, and
   * for an engine that exited, its last log lines (they usually say why it died).
   */
  private static EngineLifecycleException engineLost(EngineWatch.Lost lost, EngineInstance instance, Redactor redactor,
      LogSink log, Exception sessionError) {
    String why = redactor.apply(lost.why());
    log.log(LifecycleStage.BENCHMARK.tag() + " " + why + ": the benchmark is stopped");
    if (!lost.engineExited()) {
      return new EngineLifecycleException(LifecycleStage.BENCHMARK, why + ".", sessionError);
    }
    List<String> tail = instance.logTail(EngineRunner.LOG_TAIL_LINES).stream().map(redactor::apply).toList();
    return new EngineLifecycleException(LifecycleStage.BENCHMARK,
        why + ". Last log lines of " + instance.name() + ":\n  " + String.join("\n  ", tail), tail, sessionError);
  }

  /**
   * Stage 0's outcome: refused, forced past (logged), or fine ({@code fits} logged).
   *
   * @throws EngineLifecycleException when the verdict refuses the run
   */
  static void requireCompatible(Verdict verdict, String fits, LogSink log) {
    if (!verdict.compatible()) {
      throw new EngineLifecycleException(LifecycleStage.COMPATIBILITY, verdict.reason(), null);
    }
    String tag = LifecycleStage.COMPATIBILITY.tag() + " ";
    log.log(tag + (verdict.forced() ? "Forced past the compatibility rules: " + verdict.reason() : fits));
  }

  private static void requireWorkerThread() {
    String thread = Thread.currentThread().getName();
    if (thread.startsWith("vert.x-eventloop-thread")) {
      throw new IllegalStateException("The engine lifecycle blocks: run it on a worker thread (executeBlocking), not on "
          + thread + ".");
    }
  }

  /** The exception's message with its root cause's, for one-sentence errors. */
  static String message(Throwable e) {
    String own = e.getMessage();
    String root = DockerClients.rootMessage(e);
    if (own == null || own.isBlank()) {
      return root;
    }
    return own.contains(root) ? own : own + " (" + root + ")";
  }

  static String firstLine(String text) {
    int newline = text == null ? -1 : text.indexOf('\n');
    return newline < 0 ? String.valueOf(text) : text.substring(0, newline);
  }
}
