package dev.svc.agent.cli;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code svc-agent stop}: SIGTERM to the agent named by {@code agent.pid}, then waits for it to
 * exit (it cancels a running benchmark first). A PID file whose process is gone, or is not an
 * svc-agent, is stale: it is removed and nothing is signalled.
 */
@Command(name = "stop", mixinStandardHelpOptions = true, description = "Stop the agent daemon (SIGTERM to the process in agent.pid).")
public final class StopCommand implements Callable<Integer> {

  @Mixin
  HomeOptions homeOptions = new HomeOptions();

  @Option(names = "--timeout", paramLabel = "SECONDS", description = "How long to wait for the agent to exit (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds = 30;

  @Override
  public Integer call() {
    if (timeoutSeconds < 1) {
      System.err.println("svc-agent stop: --timeout must be at least 1 second");
      return 2;
    }
    PidFile pidFile = new PidFile(homeOptions.home().pid());
    OptionalLong pid;
    try {
      pid = pidFile.read();
    } catch (RuntimeException e) {
      System.err.println("svc-agent stop: " + e.getMessage());
      return 1;
    }
    if (pid.isEmpty()) {
      boolean removed = pidFile.remove();
      System.out.println("svc-agent is not running" + (removed ? " (removed the unreadable " + pidFile.file() + ")"
          : " (no " + pidFile.file() + ")"));
      return 0;
    }
    Optional<ProcessHandle> agent = ProcessHandle.of(pid.getAsLong()).filter(ProcessHandle::isAlive);
    if (agent.isEmpty() || !PidFile.isAgentProcess(agent.get())) {
      pidFile.remove();
      System.out.println("svc-agent is not running (removed the stale " + pidFile.file() + ": pid " + pid.getAsLong()
          + (agent.isEmpty() ? " is gone" : " is not svc-agent") + ")");
      return 0;
    }
    if (agent.get().pid() == ProcessHandle.current().pid()) {
      System.err.println("svc-agent stop: " + pidFile.file() + " names this very process");
      return 1;
    }
    if (!agent.get().destroy()) {
      System.err.println("svc-agent stop: could not send SIGTERM to pid " + pid.getAsLong());
      return 1;
    }
    System.out.println("Stopping svc-agent (pid " + pid.getAsLong() + ")…");
    try {
      agent.get().onExit().get(timeoutSeconds, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      System.err.println("svc-agent stop: the agent (pid " + pid.getAsLong() + ") did not exit within " + timeoutSeconds
          + " s; it is still running (see " + homeOptions.home().log() + ")");
      return 1;
    } catch (ExecutionException e) {
      System.err.println("svc-agent stop: " + e.getCause().getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    // the agent removes it on a clean exit; after a crash during shutdown it is left behind
    pidFile.releaseIfOwnedBy(pid.getAsLong());
    System.out.println("svc-agent stopped (pid " + pid.getAsLong() + ")");
    return 0;
  }
}
