package dev.svc.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code svc-agent preflight}. */
@Command(name = "preflight", mixinStandardHelpOptions = true, description = "Check this host's prerequisites.")
public final class PreflightCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("svc-agent preflight: not built yet");
    return 1;
  }
}
