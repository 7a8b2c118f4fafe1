package dev.svc.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code svc-agent update}. */
@Command(name = "update", mixinStandardHelpOptions = true, description = "Install the latest agent package from the server.")
public final class UpdateCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("svc-agent update: not built yet");
    return 1;
  }
}
