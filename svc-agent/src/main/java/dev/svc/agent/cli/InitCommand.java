package dev.svc.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code svc-agent init}. */
@Command(name = "init", mixinStandardHelpOptions = true, description = "Enrol this host: write agent.yaml and obtain a client certificate from the server.")
public final class InitCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("svc-agent init: not built yet");
    return 1;
  }
}
