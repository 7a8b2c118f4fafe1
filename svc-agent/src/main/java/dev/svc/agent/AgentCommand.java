package dev.svc.agent;

import dev.svc.core.SvcVersion;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The `svc-agent` command line. The daemon's commands arrive with the agent issue. */
@Command(name = "svc-agent", mixinStandardHelpOptions = true, versionProvider = AgentCommand.Version.class,
    description = "The svc agent daemon that runs benchmarks on a GPU host.")
public final class AgentCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new AgentCommand()).execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** Prints the package version. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"svc-agent " + SvcVersion.version()};
    }
  }
}
