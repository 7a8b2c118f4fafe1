package dev.svc.agent.engine;

import com.github.dockerjava.api.DockerClient;
import dev.svc.agent.AgentBus;
import dev.svc.agent.AgentBus.Acceptance;
import dev.svc.agent.AgentBus.Cancel;
import dev.svc.agent.AgentBus.EngineState;
import dev.svc.agent.AgentBus.RunLine;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.engine.JournalEntry.State;
import dev.svc.agent.storage.ModelLookupException;
import dev.svc.agent.storage.ModelStorage;
import dev.svc.agent.storage.ModelWorkflow;
import dev.svc.agent.storage.ShareMounter;
import dev.svc.agent.storage.StorageFigures;
import dev.svc.agent.storage.SystemShareMounter;
import dev.svc.bench.hardware.NvidiaSmi;
import dev.svc.core.CpuArch;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.home.SvcHome;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import dev.svc.core.protocol.HeartbeatAnswer;
import dev.svc.core.protocol.RunTest;
import dev.svc.engines.Compatibility;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.Verdict;
import dev.svc.engines.lifecycle.DockerClients;
import dev.svc.engines.lifecycle.EngineImages;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one benchmark at a time (see {@link AgentBus} for what it answers): the mission's model
 * workflow (local copy → share mounted → confined lookup and copy), then {@code svc run} in the
 * svc benchmark container when its image is on this host, else as a local child process; its
 * output goes line by line to {@link AgentBus#LOG} and in batches to the uplink; the result
 * ({@code metrics.json}) and status changes go to the uplink, whose spool keeps them until the
 * server accepts them.
 *
 * <p>Every command accepted is first recorded in {@code <home>/jobs} (see {@link CommandJournal}): a
 * command resent by the server is accepted again and does nothing, even after a restart, and a
 * benchmark an agent restart interrupted is reported failed at the next start (or its result,
 * when it had ended). All file, process and Docker work runs on workers; the event loop only
 * moves messages and state.
 */
public final class EngineLifecycleVerticle extends VerticleBase {

  static final String CANCELLED = "Cancelled by user";
  static final String AGENT_STOPPED = "Agent stopped during the benchmark";
  static final String AGENT_RESTARTED = "Agent restarted during the benchmark";
  static final String DEFAULT_IMAGE = "svc:latest";
  /** Log lines go to the uplink at least this often, or per {@link #BATCH_LINES} lines. */
  static final long BATCH_MS = 250;
  static final int BATCH_LINES = 100;

  private static final Logger LOG = LoggerFactory.getLogger(EngineLifecycleVerticle.class);

  private final AgentHome home;
  private final AgentConfig config;
  private final ShareMounter mounter;
  private final Set<String> known = new HashSet<>();
  private final List<MessageConsumer<JsonObject>> consumers = new ArrayList<>();
  private CommandJournal journal;
  private ContainerSweeper sweeper;
  private UplinkReports reports;
  private WorkerExecutor benchmarkWorker;
  private JsonObject settings = new JsonObject();
  private Job current;
  private boolean stopping;
  private volatile DockerClient docker;

  public EngineLifecycleVerticle(AgentHome home, AgentConfig config) {
    this(home, config, new SystemShareMounter(config.mount()));
  }

  /** With another share mounter: for hosts (and tests) without an NFS server. */
  public EngineLifecycleVerticle(AgentHome home, AgentConfig config, ShareMounter mounter) {
    this.home = home;
    this.config = config;
    this.mounter = mounter;
  }

  @Override
  public Future<?> start() {
    journal = new CommandJournal(home.jobs());
    sweeper = new ContainerSweeper(vertx, journal, this::docker);
    reports = new UplinkReports(vertx, () -> stopping);
    // benchmarks wait on their process for as long as it runs: not on the shared worker pool
    benchmarkWorker = vertx.createSharedWorkerExecutor("svc-agent-benchmark-" + System.identityHashCode(this), 2, 7,
        TimeUnit.DAYS);
    return blocking(() -> {
      JsonObject cached = null;
      if (Files.isRegularFile(home.settingsCache())) {
        try {
          cached = new JsonObject(Files.readString(home.settingsCache(), StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
          LOG.warn("Ignoring the unreadable settings cache {}", home.settingsCache());
        }
      }
      journal.prune();
      return new Object[] {cached, journal.all()};
    }).compose(loaded -> {
      if (loaded[0] != null && settings.isEmpty()) {
        settings = (JsonObject) loaded[0];
      }
      @SuppressWarnings("unchecked")
      List<JournalEntry> records = (List<JournalEntry>) loaded[1];
      List<JournalEntry> unfinished = new ArrayList<>();
      for (JournalEntry record : records) {
        known.add(record.commandId());
        if (record.state() != State.DONE) {
          unfinished.add(record);
        } else if (record.unswept()) {
          sweeper.later(record.commandId());
        }
      }
      consumers.add(vertx.eventBus().<JsonObject>consumer(AgentBus.SETTINGS, m -> {
        if (m.body() != null) {
          settings = m.body().copy();
        }
      }));
      consumers.add(vertx.eventBus().consumer(AgentBus.ENGINE_COMMAND, this::onCommand));
      consumers.add(vertx.eventBus().consumer(AgentBus.ENGINE_CANCEL, this::onCancel));
      consumers.add(vertx.eventBus().consumer(AgentBus.ENGINE_STATE, m -> m.reply(state())));
      // reported in the background: the uplink may deploy after this verticle
      unfinished.forEach(this::recover);
      return Future.all(consumers.stream().map(MessageConsumer::completion).toList());
    });
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    Job job = current;
    Future<?> ended = job == null ? Future.succeededFuture() : stopJob(job, AGENT_STOPPED).compose(v -> {
      Promise<Void> waited = Promise.promise();
      // the report may not reach a spool that is already gone: the journal keeps the reason for the next start
      long timer = vertx.setTimer(15_000, t -> waited.tryComplete());
      job.done.future().onComplete(r -> {
        vertx.cancelTimer(timer);
        waited.tryComplete();
      });
      return waited.future();
    });
    return ended.eventually(() -> blocking(() -> {
      DockerClient client = docker;
      if (client != null) {
        client.close();
      }
      return null;
    })).eventually(() -> benchmarkWorker.close());
  }

  // ---------------------------------------------------------------- the bus

  private JsonObject state() {
    Job job = current;
    boolean busy = job != null && job.benchmark;
    return new EngineState(busy, job == null ? null : job.testId, job == null ? null : job.commandId,
        busy ? "running" : "idle").toJson();
  }

  private void onCommand(Message<JsonObject> message) {
    HeartbeatAnswer.Command command;
    try {
      command = HeartbeatAnswer.Command.parse(message.body() == null ? new JsonObject() : message.body()).orElse(null);
    } catch (HeartbeatAnswer.MalformedException e) {
      message.reply(refused(e.getMessage()));
      return;
    }
    if (command == null) {
      message.reply(refused("The command has no command_id"));
      return;
    }
    String commandId = command.commandId();
    if (known.contains(commandId)) {
      // the server resends until acknowledged: this one is already accepted (or done)
      message.reply(Acceptance.yes().toJson());
      return;
    }
    if (stopping) {
      message.reply(refused("The agent is stopping"));
      return;
    }
    String type = command.type() == null ? "" : command.type();
    switch (type) {
      case "run_test", "run_container" -> acceptBenchmark(message, command);
      case "cleanup_storage" -> acceptCleanup(message, command);
      case "cancel_test" -> {
        String testId = testOf(command);
        known.add(commandId);
        record(command, State.DONE).onComplete(r -> {
          if (r.failed()) {
            known.remove(commandId);
            message.reply(refused(r.cause().getMessage()));
            return;
          }
          message.reply(Acceptance.yes().toJson());
          Job job = current;
          if (job != null && job.benchmark && !job.reported && testId != null && testId.equals(job.testId)) {
            stopJob(job, CANCELLED);
          }
        });
      }
      default -> message.reply(refused("Unknown command type '" + type + "'"));
    }
  }

  /** The command's test: its test_id, else its payload's (older servers put it only there). */
  private static String testOf(HeartbeatAnswer.Command command) {
    if (command.testId() != null) {
      return command.testId();
    }
    try {
      return Fields.optString(command.payload(), "test_id", null);
    } catch (BadMessage e) {
      return null;
    }
  }

  private void acceptBenchmark(Message<JsonObject> message, HeartbeatAnswer.Command received) {
    String commandId = received.commandId();
    String testId = testOf(received);
    if (current != null) {
      message.reply(refused(current.benchmark ? "Busy with test " + current.testId + "; one benchmark at a time"
          : "Busy cleaning the model storage"));
      return;
    }
    if (testId == null || testId.isBlank()) {
      message.reply(refused("The command has no test_id"));
      return;
    }
    RunTest test;
    try {
      test = RunTest.from(received.payload());
    } catch (HeartbeatAnswer.MalformedException e) {
      message.reply(refused(e.getMessage()));
      return;
    }
    HeartbeatAnswer.Command command = new HeartbeatAnswer.Command(commandId, testId, received.type(), received.payload());
    Job job = new Job(command, true);
    current = job; // reserved now: a second command meanwhile is refused
    known.add(commandId);
    record(command, State.ACCEPTED).onComplete(r -> {
      if (r.failed()) {
        current = null;
        known.remove(commandId);
        message.reply(refused("Cannot record the command: " + r.cause().getMessage()));
        return;
      }
      message.reply(Acceptance.yes().toJson());
      runBenchmark(job, test);
    });
  }

  private void acceptCleanup(Message<JsonObject> message, HeartbeatAnswer.Command command) {
    String commandId = command.commandId();
    String modelPath;
    try {
      modelPath = Fields.optString(command.payload(), "model_path", "");
    } catch (BadMessage e) {
      message.reply(refused(e.getMessage()));
      return;
    }
    Job busy = current;
    ModelStorage storage = storage();
    blocking(() -> {
      Path target = modelPath.isBlank() ? null : storage.confined(modelPath);
      return java.util.Optional.ofNullable(target);
    }).onComplete(resolved -> {
      if (resolved.succeeded() && busy != null && current == busy && inUse(busy, resolved.result().orElse(null))) {
        // not acknowledged: the server resends it, and it runs once the benchmark is over
        message.reply(refused("A benchmark is running on " + (busy.model == null ? "a model being prepared" : busy.model)
            + "; cleanup refused until it ends"));
        return;
      }
      known.add(commandId);
      record(new HeartbeatAnswer.Command(commandId, null, command.type(), command.payload()), State.DONE).onComplete(r -> {
        if (r.failed()) {
          known.remove(commandId);
          message.reply(refused("Cannot record the command: " + r.cause().getMessage()));
          return;
        }
        message.reply(Acceptance.yes().toJson());
        if (resolved.failed()) {
          LOG.warn("cleanup_storage {}: {}", commandId, resolved.cause().getMessage());
          return;
        }
        Path target = resolved.result().orElse(null);
        blocking(() -> {
          List<Path> models = target == null ? storage.models() : List.of(target);
          for (Path model : models) {
            storage.delete(model);
            LOG.info("cleanup_storage: deleted {}", model);
          }
          return models.size();
        }).onFailure(e -> LOG.warn("cleanup_storage {} failed: {}", commandId, e.getMessage()));
      });
    });
  }

  /** Whether the running benchmark uses the target (every model when null); unknown yet counts as in use. */
  private static boolean inUse(Job job, Path target) {
    if (job.model == null || target == null) {
      return true;
    }
    return job.model.startsWith(target) || target.startsWith(job.model);
  }

  private void onCancel(Message<JsonObject> message) {
    String testId;
    try {
      testId = message.body() == null ? null : Cancel.parse(message.body()).testId();
    } catch (BadMessage e) {
      testId = null;
    }
    Job job = current;
    if (job == null || !job.benchmark || job.reported || testId == null || !testId.equals(job.testId)) {
      message.reply(new Cancel.Answer(false, "No benchmark of test " + testId + " is running").toJson());
      return;
    }
    stopJob(job, CANCELLED).onComplete(r -> message.reply(new Cancel.Answer(true, null).toJson()));
  }

  private static JsonObject refused(String reason) {
    return Acceptance.refused(reason).toJson();
  }

  // ---------------------------------------------------------------- one benchmark

  /** One command being carried out; its fields belong to the event loop. */
  private final class Job {
    final HeartbeatAnswer.Command command;
    final String commandId;
    final String testId;
    final boolean benchmark;
    final Promise<Void> done = Promise.promise();
    final List<String> pending = new ArrayList<>();
    Future<?> logChain = Future.succeededFuture();
    long timer = -1;
    Path model;
    boolean copied;
    Path out;
    RunningBenchmark running;
    String stopReason;
    Future<Void> stopped;
    String lastError;
    /** Its end is being reported: nothing is left to cancel. */
    boolean reported;

    Job(HeartbeatAnswer.Command command, boolean benchmark) {
      this.command = command;
      this.commandId = command.commandId();
      this.testId = command.testId();
      this.benchmark = benchmark;
    }

    /** A line of the run: to the local stream at once, to the uplink in batches. */
    void line(String line) {
      vertx.eventBus().publish(AgentBus.LOG, new RunLine(commandId, testId, line).toJson());
      if (line.startsWith("svc run: ")) {
        lastError = line.substring("svc run: ".length());
      }
      pending.add(line);
      if (pending.size() >= BATCH_LINES) {
        flush();
      }
    }

    /** Sends the lines so far after those before (the uplink numbers them in order). */
    Future<?> flush() {
      if (!pending.isEmpty()) {
        List<String> batch = List.copyOf(pending);
        pending.clear();
        logChain = logChain.compose(v -> reports.logs(testId, commandId, batch));
      }
      return logChain;
    }

    /** Hands a line from any thread to the event loop. */
    Consumer<String> sink() {
      return line -> context.runOnContext(v -> line(line));
    }
  }

  private void runBenchmark(Job job, RunTest test) {
    job.timer = vertx.setPeriodic(BATCH_MS, t -> job.flush());
    String modelPath = test.modelPath();
    Consumer<String> sink = job.sink();
    Future<Integer> run = reports.status(job.testId, job.commandId, QuickTestStatus.RUNNING, null)
        // a copy from the share may take long: on the benchmark's own workers, not the shared pool
        .compose(v -> benchmarkWorker.executeBlocking(() -> {
          ModelWorkflow workflow = new ModelWorkflow(storage(), setting("model_share_source", config.shareSource()),
              shareMount(), mounter);
          return workflow.resolve(modelPath, sink);
        }, false))
        .compose(resolved -> {
          job.model = resolved.local();
          job.copied = resolved.copied();
          return blocking(() -> {
            update(job, State.ACCEPTED, r -> r.withModel(resolved.local().toString(), resolved.copied()));
            return prepare(job, test, sink);
          });
        })
        .compose(benchJob -> {
          if (job.stopReason != null) {
            return Future.failedFuture(job.stopReason);
          }
          return blocking(() -> start(job, benchJob, sink));
        })
        .compose(running -> {
          job.running = running;
          if (job.stopReason != null) {
            // stopped while it was starting
            stopJob(job, job.stopReason);
          }
          return benchmarkWorker.executeBlocking(running::awaitExit, false);
        });
    run.compose(exit -> finish(job, exit), error -> fail(job, error))
        .recover(error -> {
          LOG.error("Reporting test {} failed: {}", job.testId, error.getMessage());
          return Future.succeededFuture();
        })
        .onComplete(r -> {
          vertx.cancelTimer(job.timer);
          if (current == job) {
            current = null;
          }
          job.done.complete();
        });
  }

  /** Compatibility again (the agent has the files), then the output directory. */
  private BenchmarkJob prepare(Job job, RunTest test, Consumer<String> sink) throws IOException {
    String engine = test.engineName();
    boolean force = test.force();
    EngineSpec spec = EngineCatalog.load(home.svcHome()).find(engine)
        .orElseThrow(() -> new IllegalArgumentException("Unknown engine '" + engine + "'"));
    Verdict verdict = Compatibility.checkOnDisk(spec, CpuArch.ofThisMachine(), job.model, force);
    if (!verdict.compatible()) {
      throw new IllegalArgumentException(verdict.reason());
    }
    if (verdict.forced()) {
      sink.accept("Compatibility: " + verdict.reason() + " (run anyway: force)");
    }
    Path out = home.results().resolve(safeName(job.commandId));
    deleteTree(out);
    Files.createDirectories(out);
    job.out = out;
    String benchmark = test.benchmarkName();
    String suite = test.suiteName();
    return new BenchmarkJob(job.commandId, job.testId, job.model, engine, suite.isBlank() ? "quick" : suite, benchmark,
        force, out, home.root().toAbsolutePath());
  }

  /** In the benchmark container when its image is here (and Docker is on a unix socket), else the local svc run. */
  private RunningBenchmark start(Job job, BenchmarkJob benchJob, Consumer<String> sink) throws IOException {
    String image = setting("kitt_image", "");
    image = image.isBlank() ? DEFAULT_IMAGE : image;
    String host = DockerClients.host();
    boolean container = false;
    try {
      container = new EngineImages(docker()).isPresent(image);
      if (container && !host.startsWith("unix://")) {
        sink.accept("Docker is at " + host + ", not on a local socket the benchmark container could mount");
        container = false;
      }
      if (!container) {
        sink.accept("The benchmark image " + image + " is not on this host: running svc run locally");
      }
    } catch (RuntimeException e) {
      sink.accept("Docker is not reachable (" + e.getMessage() + "): running svc run locally");
    }
    RunningBenchmark running;
    if (container) {
      boolean gpus = !new NvidiaSmi(config.nvidiaSmi()).gpus().gpus().isEmpty();
      BenchmarkContainerPlan plan = BenchmarkContainerPlan.of(benchJob, image, Path.of(host.substring("unix://".length())),
          gpus);
      sink.accept(gpus ? "GPUs found by " + config.nvidiaSmi() + ": requesting all (--gpus all)"
          : "No GPU found by " + config.nvidiaSmi() + ": no --gpus");
      sink.accept(plan.dockerRunLine());
      running = ContainerBenchmark.start(docker(), plan, job.commandId, sink);
    } else {
      sink.accept(String.join(" ", LocalBenchmark.command(benchJob).subList(3, LocalBenchmark.command(benchJob).size())));
      running = LocalBenchmark.start(benchJob, sink, this::docker);
    }
    long pid = running.pid();
    update(job, State.RUNNING, r -> r.withProcess(pid, benchJob.out().toString()));
    return running;
  }

  /** The benchmark ended: cleanup, then its result (metrics.json) or why there is none. */
  private Future<Void> finish(Job job, int exit) {
    if (job.stopReason != null) {
      return fail(job, new IllegalStateException(job.stopReason));
    }
    job.line("svc run exited with status " + exit);
    return blocking(() -> {
      update(job, State.ENDED, r -> r.withExit(exit));
      autoCleanup(job);
      return readMetrics(job.out);
    }).compose(metrics -> sweepAfter(job).map(metrics)).compose(metrics -> job.flush().map(metrics)).compose(metrics -> {
      job.reported = true;
      if (metrics == null) {
        String why = "svc run wrote no metrics.json (exit " + exit + ")" + (job.lastError == null ? "" : ": " + job.lastError);
        return reports.status(job.testId, job.commandId, QuickTestStatus.FAILED, why);
      }
      return reports.result(UplinkReports.exited(job.commandId, job.testId, exit, job.lastError, metrics));
    }).compose(v -> markDone(job));
  }

  private Future<Void> fail(Job job, Throwable error) {
    String why = job.stopReason != null ? job.stopReason : oneLine(error);
    job.line("Test failed: " + why);
    return blocking(() -> {
      update(job, job.running == null ? State.ACCEPTED : State.ENDED, r -> r.withReason(why));
      autoCleanup(job);
      return null;
    }).compose(v -> job.running == null ? Future.succeededFuture() : sweepAfter(job)).compose(v -> job.flush())
        .compose(v -> {
          job.reported = true;
          return reports.status(job.testId, job.commandId, QuickTestStatus.FAILED, why);
        })
        .compose(v -> markDone(job));
  }

  private Future<Void> markDone(Job job) {
    return blocking(() -> {
      update(job, State.DONE, r -> r);
      return null;
    });
  }

  /** Step 5 of the workflow: deletes the copy this run made, when auto_cleanup is on. Blocking. */
  private void autoCleanup(Job job) throws IOException {
    if (job.copied && job.model != null && autoCleanupOn()) {
      storage().delete(job.model);
      job.sink().accept("auto_cleanup: deleted the local copy " + job.model);
      job.copied = false;
    }
  }

  /**
   * Ends a running benchmark: its process or container, and the containers it started, are gone
   * when the future completes. Before the benchmark starts, it only marks the job.
   */
  private Future<Void> stopJob(Job job, String reason) {
    if (job.stopReason == null) {
      job.stopReason = reason;
      job.line("Stopping the benchmark: " + reason);
    }
    if (job.stopped != null) {
      return job.stopped;
    }
    if (job.running == null) {
      // the flow checks stopReason before it starts anything; the reason is kept in case the agent dies meanwhile
      return blocking(() -> {
        update(job, null, r -> r.withReason(reason));
        return null;
      });
    }
    RunningBenchmark running = job.running;
    Consumer<String> sink = job.sink();
    job.stopped = blocking(() -> {
      update(job, null, r -> r.withReason(reason));
      running.stop(sink);
      return null;
    });
    return job.stopped;
  }

  // ---------------------------------------------------------------- recovery at start

  /** A command the journal holds unfinished: the agent stopped or died while it ran. */
  private void recover(JournalEntry record) {
    String commandId = record.commandId();
    String testId = record.testId();
    if (testId == null || !record.benchmark()) {
      blocking(() -> {
        journal.put(record.with(State.DONE));
        return null;
      });
      return;
    }
    blocking(() -> {
      Long pid = record.pid();
      String out = record.out();
      if (pid != null && pid > 0 && out != null) {
        // an orphaned svc run of the previous agent process: recognised by its output directory
        ProcessHandle.of(pid).filter(p -> p.info().commandLine().map(c -> c.contains(out)).orElse(false))
            .ifPresent(p -> LocalBenchmark.stopTree(p, line -> LOG.info("{}", line)));
      }
      JournalEntry kept = record;
      if (!sweeper.sweep(commandId, line -> LOG.info("{}", line))) {
        kept = record.withUnswept(true);
        journal.put(kept);
        context.runOnContext(v -> sweeper.later(commandId));
      }
      if (record.copied() && record.model() != null && autoCleanupOn()) {
        storage().delete(Path.of(record.model()));
      }
      boolean ended = record.state() == State.ENDED && record.exit() != null && record.reason() == null;
      JsonObject metrics = ended && out != null ? readMetrics(Path.of(out)) : null;
      return new Object[] {kept, metrics};
    }).compose(checked -> {
      JournalEntry kept = (JournalEntry) checked[0];
      JsonObject metrics = (JsonObject) checked[1];
      Future<Void> reported = metrics != null
          ? reports.result(UplinkReports.exited(commandId, testId, record.exit(), null, metrics))
          : reports.status(testId, commandId, QuickTestStatus.FAILED,
              record.reason() == null ? AGENT_RESTARTED : record.reason());
      return reported.map(kept);
    }).compose(kept -> blocking(() -> {
      journal.put(kept.with(State.DONE));
      return null;
    })).onFailure(e -> LOG.warn("Could not report the interrupted test {}: {}", testId, e.getMessage()));
  }

  // ---------------------------------------------------------------- containers left behind

  /** Removes the containers of a run that has ended; when Docker cannot be asked, later ({@link ContainerSweeper}). */
  private Future<Void> sweepAfter(Job job) {
    Consumer<String> sink = job.sink();
    return blocking(() -> {
      boolean swept = sweeper.sweep(job.commandId, sink);
      if (!swept) {
        sink.accept("Docker does not answer: this run's containers will be removed once it does");
        update(job, null, r -> r.withUnswept(true));
      }
      return swept;
    }).map(swept -> {
      if (!swept) {
        sweeper.later(job.commandId);
      }
      return null;
    });
  }

  // ---------------------------------------------------------------- helpers

  /** The metrics.json of an output directory, or null when there is none (or it is not JSON). Blocking. */
  private static JsonObject readMetrics(Path out) {
    Path file = out.resolve("metrics.json");
    if (!Files.isRegularFile(file)) {
      return null;
    }
    try {
      return new JsonObject(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private Future<Void> record(HeartbeatAnswer.Command command, State state) {
    return blocking(() -> {
      journal.put(JournalEntry.accepted(command, state));
      return null;
    });
  }

  /** Rewrites the job's record with a new state (null keeps it) and more fields. Blocking. */
  private void update(Job job, State state, UnaryOperator<JournalEntry> change) {
    JournalEntry record = journal.get(job.commandId).orElseGet(() -> JournalEntry.accepted(job.command, State.ACCEPTED));
    journal.put(change.apply(state == null ? record : record.with(state)));
  }

  private ModelStorage storage() {
    return new ModelStorage(StorageFigures.dir(config, settings).toAbsolutePath());
  }

  private Path shareMount() {
    String mount = setting("model_share_mount", config.shareMount());
    return mount.isBlank() ? null : SvcHome.expand(mount).toAbsolutePath();
  }

  private boolean autoCleanupOn() {
    return !"false".equalsIgnoreCase(setting("auto_cleanup", "true").strip());
  }

  /** A setting from the server, else agent.yaml's value ({@link AgentConfig#effective}). */
  private String setting(String key, String fallback) {
    return AgentConfig.effective(settings, key, fallback);
  }


  private DockerClient docker() {
    DockerClient client = docker;
    if (client == null) {
      synchronized (this) {
        if (docker == null) {
          docker = DockerClients.connect();
        }
        client = docker;
      }
    }
    return client;
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }

  static String safeName(String commandId) {
    return CommandJournal.fileName(commandId).replaceFirst("\\.json$", "");
  }

  private static String oneLine(Throwable error) {
    Throwable shown = error;
    while (!(shown instanceof ModelLookupException) && shown.getCause() != null && shown.getMessage() == null) {
      shown = shown.getCause();
    }
    String message = shown.getMessage() == null ? shown.getClass().getSimpleName() : shown.getMessage();
    return message.lines().findFirst().orElse(message).strip();
  }

  private static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (var walk = Files.walk(path)) {
      for (Path entry : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(entry);
      }
    }
  }
}
