package dev.svc.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code svc-agent status}. */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Show the configuration and probe the local agent.")
public final class StatusCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("svc-agent status: not built yet");
    return 1;
  }
}
