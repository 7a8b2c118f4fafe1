package dev.svc.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code svc-agent service}. */
@Command(name = "service", mixinStandardHelpOptions = true, description = "Manage the systemd unit of the agent.")
public final class ServiceCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("svc-agent service: not built yet");
    return 1;
  }
}
