package dev.svc.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code svc-agent stop}. */
@Command(name = "stop", mixinStandardHelpOptions = true, description = "Stop the agent daemon (SIGTERM to the process in agent.pid).")
public final class StopCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("svc-agent stop: not built yet");
    return 1;
  }
}
