package dev.svc.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code svc-agent start}. */
@Command(name = "start", mixinStandardHelpOptions = true, description = "Start the agent daemon.")
public final class StartCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("svc-agent start: not built yet");
    return 1;
  }
}
