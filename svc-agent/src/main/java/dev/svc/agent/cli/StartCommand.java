package dev.svc.agent.cli;

import dev.svc.agent.AgentCommand;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.daemon.AgentDaemon;
import dev.svc.core.SvcVersion;
import io.vertx.core.Future;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code svc-agent start}: runs the agent daemon. Without {@code --foreground} it starts itself
 * again as a detached child (same JVM binary and classpath, stdin from /dev/null, its own session
 * through {@code setsid}) and returns once that child has written its PID file and its local
 * {@code /api/status} answers. In the foreground it holds {@code agent.pid}, logs to the rotating
 * {@code logs/agent.log} and runs until SIGTERM/SIGINT, which stops the daemon cleanly.
 */
@Command(name = "start", mixinStandardHelpOptions = true, description = "Start the agent daemon.")
public final class StartCommand implements Callable<Integer> {

  /** How long a daemonising start waits for the child to answer (hardware detection and registration included). */
  static final int DEFAULT_WAIT_SECONDS = 120;
  /** How long SIGTERM waits for the daemon to stop (it cancels a running benchmark first). */
  static final long STOP_WAIT_SECONDS = 60;

  @Mixin
  HomeOptions homeOptions = new HomeOptions();

  @Option(names = "--insecure", description = "Do not verify the server's TLS certificate (development only).")
  boolean insecure;

  @Option(names = "--preflight", description = "Run the preflight checks first; do not start when a required one fails.")
  boolean preflight;

  @Option(names = "--foreground", description = "Run in this process instead of detaching (for systemd and containers).")
  boolean foreground;

  @Option(names = "--wait", paramLabel = "SECONDS", hidden = true,
      description = "How long to wait for the detached agent to answer (default: ${DEFAULT-VALUE}).")
  int waitSeconds = DEFAULT_WAIT_SECONDS;

  /** Set on the detached child: its output goes to the log only (there is no terminal). */
  @Option(names = "--daemon-child", hidden = true)
  boolean daemonChild;

  @Override
  public Integer call() {
    AgentHome home = homeOptions.home();
    if (daemonChild) {
      // first, so that whatever goes wrong below is in the log the parent shows
      if (!redirectOutput(home.log(), false)) {
        return 1;
      }
    }
    AgentConfig config;
    try {
      config = homeOptions.loadConfig();
    } catch (RuntimeException e) {
      System.err.println("svc-agent start: " + e.getMessage());
      return 1;
    }
    if (preflight && !daemonChild && runPreflight() != 0) {
      System.err.println("svc-agent start: a required preflight check failed; not starting");
      return 1;
    }
    if (waitSeconds < 1) {
      System.err.println("svc-agent start: --wait must be at least 1 second");
      return 2;
    }
    return foreground ? runForeground(home, config) : daemonise(home, config);
  }

  // --- preflight ---

  /** {@code svc-agent preflight} through the command line, with the options it has of ours. */
  int runPreflight() {
    CommandLine root = AgentCommand.commandLine();
    var spec = root.getSubcommands().get("preflight").getCommandSpec();
    List<String> args = new ArrayList<>(List.of("preflight"));
    if (spec.findOption("--home") != null && homeOptions.home != null) {
      args.addAll(List.of("--home", homeOptions.home().root().toString()));
    }
    if (spec.findOption("--config") != null) {
      args.addAll(List.of("--config", homeOptions.configFile().toString()));
    }
    if (insecure && spec.findOption("--insecure") != null) {
      args.add("--insecure");
    }
    return root.execute(args.toArray(String[]::new));
  }

  // --- detaching ---

  private int daemonise(AgentHome home, AgentConfig config) {
    PidFile pidFile = new PidFile(home.pid());
    Optional<ProcessHandle> running = pidFile.liveAgent();
    if (running.isPresent()) {
      System.err.println("svc-agent start: svc-agent is already running (pid " + running.get().pid() + ", "
          + pidFile.file() + ")");
      return 1;
    }
    if (pidFile.read().isPresent() || Files.exists(pidFile.file())) {
      pidFile.remove(); // stale: any id in it from now on is the child's
    }
    Path log = home.log();
    long logStart;
    try {
      Files.createDirectories(log.getParent());
      logStart = Files.exists(log) ? Files.size(log) : 0;
    } catch (IOException e) {
      System.err.println("svc-agent start: could not create " + log.getParent() + ": " + e.getMessage());
      return 1;
    }
    List<String> command = childCommand(home);
    Process child;
    try {
      child = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          // the JVM's own messages (before the child redirects its streams) land in the log too
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).redirectErrorStream(true).start();
    } catch (IOException e) {
      System.err.println("svc-agent start: could not start " + command.get(0) + ": " + e.getMessage());
      return 1;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(waitSeconds);
    String lastProblem = "no answer";
    try (LocalAgent local = LocalAgent.open(home, config)) {
      while (System.nanoTime() < deadline) {
        OptionalLong pid = pidFile.read();
        Optional<ProcessHandle> agent = pid.isPresent() ? ProcessHandle.of(pid.getAsLong())
            .filter(ProcessHandle::isAlive) : Optional.empty();
        String problem = agent.isPresent() ? probe(local) : "no PID file yet";
        if (problem == null) {
          System.out.println("svc-agent started: pid " + agent.get().pid() + ", port " + config.port());
          System.out.println("Log: " + log);
          return 0;
        }
        // setsid exits 0 at once when it had to fork; the agent then lives on under the id it writes
        boolean childFailed = !child.isAlive() && child.exitValue() != 0;
        boolean agentGone = pid.isPresent() && agent.isEmpty();
        if (childFailed || agentGone) {
          System.err.println("svc-agent start: the agent exited during startup"
              + (childFailed ? " (exit code " + child.exitValue() + ")" : "") + "; the end of " + log + ":");
          System.err.print(tail(log, logStart, 30));
          return 1;
        }
        lastProblem = problem;
        pause(200);
      }
    } catch (IllegalArgumentException e) {
      System.err.println("svc-agent start: " + e.getMessage());
      stopChild(child, pidFile);
      return 1;
    }
    System.err.println("svc-agent start: the agent did not answer on " + LocalAgent.host(config) + ":" + config.port()
        + " within " + waitSeconds + " s (" + lastProblem + "); stopped it. The end of " + log + ":");
    System.err.print(tail(log, logStart, 30));
    stopChild(child, pidFile);
    return 1;
  }

  /** Null when the local API answers, else why not. */
  private static String probe(LocalAgent local) {
    try {
      local.status();
      return null;
    } catch (RuntimeException e) {
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
  }

  private static void stopChild(Process child, PidFile pidFile) {
    OptionalLong pid = pidFile.read();
    Optional<ProcessHandle> agent = pid.isPresent() ? ProcessHandle.of(pid.getAsLong()).filter(PidFile::isAgentProcess)
        : Optional.empty();
    agent.ifPresent(ProcessHandle::destroy);
    child.destroy();
    try {
      child.onExit().get(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
      if (agent.isPresent()) {
        agent.get().onExit().get(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      agent.ifPresent(ProcessHandle::destroyForcibly);
      child.destroyForcibly();
    }
  }

  /** The child: this JVM's binary, options and classpath, the agent's main class, {@code start --foreground}. */
  List<String> childCommand(AgentHome home) {
    List<String> command = new ArrayList<>();
    setsid().ifPresent(command::add);
    command.add(javaBinary());
    command.addAll(jvmOptions());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(AgentCommand.class.getName());
    command.addAll(List.of("start", "--foreground", "--daemon-child", "--home", home.root().toString(),
        "--config", homeOptions.configFile().toString()));
    if (insecure) {
      command.add("--insecure");
    }
    return command;
  }

  static String javaBinary() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  /** System properties and memory/GC options pass on; debugger and instrumentation agents do not. */
  static List<String> jvmOptions() {
    List<String> options = new ArrayList<>();
    for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      boolean agentOrDebugger = option.startsWith("-agentlib") || option.startsWith("-agentpath")
          || option.startsWith("-javaagent") || option.startsWith("-Xrunjdwp") || option.equals("-Xdebug");
      if (!agentOrDebugger && (option.startsWith("-D") || option.startsWith("-X"))) {
        options.add(option);
      }
    }
    return options;
  }

  /** {@code setsid}, so that the agent leaves the terminal's session (no SIGHUP when it closes). */
  static Optional<String> setsid() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "setsid");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate.toAbsolutePath().toString());
      }
    }
    return Optional.empty();
  }

  /** The last {@code lines} lines written to {@code log} since {@code from} (or of the newest file, after a rotation). */
  static String tail(Path log, long from, int lines) {
    try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
      long start = file.length() >= from ? from : 0;
      long length = Math.min(file.length() - start, 256 * 1024);
      file.seek(file.length() - length);
      byte[] bytes = new byte[(int) length];
      file.readFully(bytes);
      List<String> all = Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\n", -1));
      if (!all.isEmpty() && all.get(all.size() - 1).isEmpty()) {
        all = all.subList(0, all.size() - 1);
      }
      List<String> last = all.subList(Math.max(0, all.size() - lines), all.size());
      StringBuilder out = new StringBuilder();
      last.forEach(line -> out.append("  ").append(line).append('\n'));
      return out.length() == 0 ? "  (nothing)\n" : out.toString();
    } catch (IOException e) {
      return "  (could not read " + log + ": " + e.getMessage() + ")\n";
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted", e);
    }
  }

  // --- the foreground daemon ---

  private int runForeground(AgentHome home, AgentConfig config) {
    PidFile pidFile = new PidFile(home.pid());
    long self = ProcessHandle.current().pid();
    try {
      pidFile.acquire();
    } catch (PidFile.AlreadyRunning e) {
      System.err.println("svc-agent start: " + e.getMessage());
      return 1;
    } catch (RuntimeException e) {
      System.err.println("svc-agent start: " + e.getMessage());
      return 1;
    }
    if (!daemonChild && !redirectOutput(home.log(), true)) {
      pidFile.releaseIfOwnedBy(self);
      return 1;
    }
    System.out.println("svc-agent " + SvcVersion.version() + " starting: pid " + self + ", home " + home.root()
        + ", config " + homeOptions.configFile() + ", server " + String.join(", ", config.servers()) + ", port "
        + config.port());
    // Listeners go on the daemon's futures while its Vert.x runs: one added after Vert.x has closed
    // is dispatched to a dead event loop and never called.
    AtomicReference<CompletableFuture<AgentDaemon>> starting = new AtomicReference<>();
    Thread hook = new Thread(() -> {
      CompletableFuture<AgentDaemon> start = starting.get();
      if (start != null) {
        System.out.println("svc-agent: stopping (signal)");
        try {
          AgentDaemon running = start.get(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
          Future<Void> stopped = running.stopped();
          if (!stopped.isComplete()) {
            CompletableFuture<Void> done = stopped.toCompletionStage().toCompletableFuture();
            running.stop();
            done.get(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
          }
          System.out.println("svc-agent: stopped");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
          System.out.println("svc-agent: stopping did not finish cleanly: " + message(e));
        }
      }
      pidFile.releaseIfOwnedBy(self);
      System.out.flush();
      System.err.flush();
    }, "svc-agent-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);

    AgentDaemon daemon;
    CompletableFuture<Void> stopped;
    try {
      CompletableFuture<AgentDaemon> start = AgentDaemon.start(home, config, insecure).toCompletionStage()
          .toCompletableFuture();
      starting.set(start);
      daemon = start.get();
      stopped = daemon.stopped().toCompletionStage().toCompletableFuture();
    } catch (ExecutionException | RuntimeException e) {
      starting.set(null);
      System.err.println("svc-agent start: the agent could not start: " + message(e));
      pidFile.releaseIfOwnedBy(self);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pidFile.releaseIfOwnedBy(self);
      return 1;
    }
    System.out.println("svc-agent running: pid " + self + ", local API on port " + config.port());
    try {
      stopped.get();
    } catch (ExecutionException e) {
      System.err.println("svc-agent: the agent stopped on an error: " + message(e));
      pidFile.releaseIfOwnedBy(self);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pidFile.releaseIfOwnedBy(self);
    return 0;
  }

  private static String message(Throwable e) {
    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
  }

  /**
   * Points System.out and System.err (and with them slf4j-simple, which writes to the current
   * System.err) at the rotating log, and also at the console when {@code console}.
   */
  static boolean redirectOutput(Path log, boolean console) {
    // a daemon's log needs times; effective when no logger was made yet, which holds this early
    System.getProperties().putIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
    System.getProperties().putIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
    RotatingLog rotating;
    try {
      rotating = new RotatingLog(log);
    } catch (IOException | RuntimeException e) {
      System.err.println("svc-agent start: could not open the log " + log + ": " + e.getMessage());
      return false;
    }
    OutputStream out = console ? RotatingLog.tee(rotating, System.out) : rotating;
    OutputStream err = console ? RotatingLog.tee(rotating, System.err) : rotating;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    return true;
  }
}
