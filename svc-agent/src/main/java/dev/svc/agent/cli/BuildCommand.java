package dev.svc.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code svc-agent build}. */
@Command(name = "build", mixinStandardHelpOptions = true, description = "Build the svc benchmark image from the server's build context.")
public final class BuildCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("svc-agent build: not built yet");
    return 1;
  }
}
