package dev.svc.agent.engine;

import com.github.dockerjava.api.DockerClient;
import dev.svc.engines.lifecycle.ContainerPlan;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The local fallback: svc's own {@code svc run} in a child JVM on this agent's class path
 * ({@code java -cp <class path> dev.svc.agent.AgentCommand run …}), its output read line by line.
 */
final class LocalBenchmark implements RunningBenchmark {

  /** How long the process tree has to exit on SIGTERM before SIGKILL. */
  private static final long TERM_GRACE_MS = 1500;

  private final Process process;
  private final Thread reader;
  private final String commandId;
  private final Supplier<DockerClient> docker;

  private LocalBenchmark(Process process, Thread reader, String commandId, Supplier<DockerClient> docker) {
    this.process = process;
    this.reader = reader;
    this.commandId = commandId;
    this.docker = docker;
  }

  /** The command line of the child. */
  static List<String> command(BenchmarkJob job) {
    List<String> command = new ArrayList<>();
    command.add(javaBinary());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.svc.agent.AgentCommand");
    command.add("run");
    command.addAll(job.runArguments());
    command.add("--home");
    command.add(job.agentHome().toString());
    return command;
  }

  static LocalBenchmark start(BenchmarkJob job, Consumer<String> lines, Supplier<DockerClient> docker) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command(job)).redirectErrorStream(true);
    builder.environment().put(ContainerPlan.RUN_ID_ENV, job.commandId());
    Process process = builder.start();
    process.getOutputStream().close();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.accept(line);
        }
      } catch (IOException e) {
        // the process was killed: its output ends here
      }
    }, "svc-benchmark-output-" + process.pid());
    reader.setDaemon(true);
    reader.start();
    return new LocalBenchmark(process, reader, job.commandId(), docker);
  }

  @Override
  public int awaitExit() throws InterruptedException {
    int exit = process.waitFor();
    reader.join();
    return exit;
  }

  @Override
  public long pid() {
    return process.pid();
  }

  @Override
  public void stop(Consumer<String> log) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
    stopTree(process.toHandle(), log);
    try {
      DockerClient client = docker.get();
      RunContainers.sweep(client, commandId, deadline, log);
    } catch (RuntimeException e) {
      log.accept("Could not reach Docker to remove this run's containers: " + e.getMessage());
    }
  }

  /**
   * SIGTERM to the process and its descendants (listed first: once the parent is gone they are
   * re-parented and no longer its descendants), SIGKILL to those still alive after the grace.
   */
  static void stopTree(ProcessHandle root, Consumer<String> log) {
    List<ProcessHandle> tree = new ArrayList<>(root.descendants().toList());
    tree.add(0, root);
    tree.forEach(ProcessHandle::destroy);
    long graceEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TERM_GRACE_MS);
    for (ProcessHandle handle : tree) {
      long left = graceEnd - System.nanoTime();
      try {
        if (left > 0) {
          handle.onExit().get(left, TimeUnit.NANOSECONDS);
        }
      } catch (Exception e) {
        // still alive: killed below
      }
    }
    for (ProcessHandle handle : tree) {
      if (handle.isAlive()) {
        log.accept("Process " + handle.pid() + " did not exit on SIGTERM; killing it");
        handle.destroyForcibly();
      }
    }
    for (ProcessHandle handle : tree) {
      try {
        handle.onExit().get(2, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.accept("Process " + handle.pid() + " is still alive after SIGKILL");
      }
    }
  }

  private static String javaBinary() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }
}
