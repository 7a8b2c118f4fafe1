package dev.svc.engines.lifecycle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * An engine as a process of this host: started with its output (stdout and stderr together) sent
 * line by line to the log and kept for error messages; stopped with SIGTERM, then SIGKILL after
 * the grace period, with whatever processes it started.
 */
final class ProcessInstance implements EngineInstance {

  /** How long a stop waits for the output of an exited process to be read to its end. */
  private static final long OUTPUT_DRAIN_MS = 2_000;
  /** How long a process gets to disappear after SIGKILL. */
  private static final long KILL_WAIT_MS = 5_000;

  private final Path binary;
  private final List<String> args;
  private final Map<String, String> environment;
  private final Duration stopGrace;
  private final Deque<String> tail = new ArrayDeque<>();
  private Process process;
  private Thread output;
  private boolean stopped;

  ProcessInstance(Path binary, List<String> args, Map<String, String> environment, Duration stopGrace) {
    this.binary = binary;
    this.args = List.copyOf(args);
    this.environment = Map.copyOf(environment);
    this.stopGrace = stopGrace;
  }

  /** The command as shown in the log: the environment first, each value as ***. */
  String commandLine() {
    List<String> words = new ArrayList<>();
    environment.keySet().stream().sorted().forEach(key -> words.add(key + "=" + Redactor.MASK));
    words.add(binary.toString());
    words.addAll(args);
    return ShellWords.join(words);
  }

  @Override
  public List<String> launchArgs() {
    List<String> words = new ArrayList<>();
    words.add(binary.toString());
    words.addAll(args);
    return words;
  }

  @Override
  public synchronized String name() {
    String file = binary.getFileName().toString();
    return process == null ? file : file + " (pid " + process.pid() + ")";
  }

  @Override
  public String label() {
    return "process " + name();
  }

  @Override
  public synchronized void start(LogSink log) {
    if (stopped) {
      throw new IllegalStateException("The engine run was stopped before " + binary.getFileName() + " started.");
    }
    String tag = LifecycleStage.CREATE.tag() + " ";
    log.log(tag + commandLine());
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(environment);
    try {
      process = builder.start();
      process.getOutputStream().close(); // engines read nothing from stdin
    } catch (IOException e) {
      throw new UncheckedIOException(binary + " could not be started: " + e.getMessage(), e);
    }
    log.log(tag + "Started " + name());
    Process started = process;
    output = new Thread(() -> forward(started, log), "svc-engine-output-" + started.pid());
    output.setDaemon(true);
    output.start();
  }

  /** Sends each line the process writes to the log, keeping the last ones for errors. */
  private void forward(Process from, LogSink log) {
    String tag = NativeLifecycle.OUTPUT_TAG + " ";
    try (BufferedReader reader = from.inputReader(StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        String text = line.stripTrailing();
        synchronized (tail) {
          tail.addLast(text);
          if (tail.size() > EngineRunner.LOG_TAIL_LINES) {
            tail.removeFirst();
          }
        }
        try {
          log.log(tag + text);
        } catch (RuntimeException e) {
          // a sink that fails must not stop the reading: the engine would block on a full pipe
        }
      }
    } catch (IOException e) {
      // the pipe closed under the reader: the process is gone
    }
  }

  @Override
  public synchronized Optional<String> exitState() {
    return process.isAlive() ? Optional.empty() : Optional.of(exited(process.exitValue()));
  }

  @Override
  public List<String> logTail(int lines) {
    if (!process.isAlive()) {
      awaitOutput();
    }
    synchronized (tail) {
      if (tail.isEmpty()) {
        return List.of("(the process wrote nothing)");
      }
      List<String> all = new ArrayList<>(tail);
      return all.subList(Math.max(0, all.size() - lines), all.size());
    }
  }

  @Override
  public synchronized EngineIdentity identity() {
    return new EngineIdentity.LocalProcess(process.pid(), binary);
  }

  @Override
  public boolean gpusRequested() {
    return false;
  }

  @Override
  public String stopAction() {
    return "stopping " + name();
  }

  @Override
  public String stoppedNote() {
    return "the process is stopped";
  }

  /** SIGTERM, then SIGKILL after the grace period; the processes it started are killed too. */
  @Override
  public synchronized RuntimeException stop(LogSink log) {
    stopped = true;
    if (process == null) {
      return null;
    }
    String tag = LifecycleStage.CLEANUP.tag() + " ";
    if (!process.isAlive()) {
      awaitOutput();
      log.log(tag + name() + " had already " + exited(process.exitValue()));
      return null;
    }
    // taken before the engine exits: afterwards its children belong to init and cannot be found
    List<ProcessHandle> children = process.descendants().toList();
    log.log(tag + "Stopping " + name() + " (SIGTERM)");
    process.destroy();
    try {
      if (!process.waitFor(stopGrace.toMillis(), TimeUnit.MILLISECONDS)) {
        log.log(tag + name() + " did not exit within " + HealthCheck.seconds(stopGrace.toNanos())
            + " of SIGTERM: killing it (SIGKILL)");
        process.destroyForcibly();
        if (!process.waitFor(stopGrace.toMillis(), TimeUnit.MILLISECONDS)) {
          return new IllegalStateException(name() + " is still running after SIGKILL.");
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      return new IllegalStateException("Interrupted while stopping " + name() + "; it was sent SIGKILL.", e);
    }
    List<ProcessHandle> leftBehind = children.stream().filter(ProcessHandle::isAlive).toList();
    if (!leftBehind.isEmpty()) {
      leftBehind.forEach(ProcessHandle::destroyForcibly);
      for (ProcessHandle child : leftBehind) {
        if (!awaitExit(child)) {
          return new IllegalStateException("Process " + child.pid() + ", started by " + name()
              + ", is still running after SIGKILL.");
        }
      }
      log.log(tag + "Killed " + leftBehind.size() + " process(es) " + name() + " left behind");
    }
    awaitOutput();
    log.log(tag + "Stopped " + name() + ": it " + exited(process.exitValue()));
    return null;
  }

  /**
   * Whether a process that is not our child ended within {@link #KILL_WAIT_MS}; polled, since the
   * JDK learns of such an exit only every second or two.
   */
  private static boolean awaitExit(ProcessHandle process) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(KILL_WAIT_MS);
    try {
      while (process.isAlive()) {
        if (System.nanoTime() > deadline) {
          return false;
        }
        Thread.sleep(10);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return true;
  }

  /** Lets the output reader take the last lines of an exited process (bounded: a child may hold the pipe). */
  private void awaitOutput() {
    try {
      output.join(OUTPUT_DRAIN_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String exited(int code) {
    // Java reports a process killed by signal N as 128 + N
    return "exited with code " + code + (code > 128 && code < 160 ? " (signal " + (code - 128) + ")" : "");
  }
}
