package dev.svc.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code svc-agent test}. */
@Command(name = "test", mixinStandardHelpOptions = true, description = "List this agent's tests or stop one.")
public final class TestCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("svc-agent test: not built yet");
    return 1;
  }
}
