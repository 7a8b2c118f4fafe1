package dev.svc.agent;

import dev.svc.agent.cli.BuildCommand;
import dev.svc.agent.cli.InitCommand;
import dev.svc.agent.cli.PreflightCommand;
import dev.svc.agent.cli.ServiceCommand;
import dev.svc.agent.cli.StartCommand;
import dev.svc.agent.cli.StatusCommand;
import dev.svc.agent.cli.StopCommand;
import dev.svc.agent.cli.TestCommand;
import dev.svc.agent.cli.UpdateCommand;
import dev.svc.bench.cli.RunCommand;
import dev.svc.core.SvcVersion;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The `svc-agent` command line. */
@Command(name = "svc-agent", mixinStandardHelpOptions = true, versionProvider = AgentCommand.Version.class,
    description = "The svc agent daemon that runs benchmarks on a GPU host.",
    subcommands = {InitCommand.class, StartCommand.class, StopCommand.class, StatusCommand.class, PreflightCommand.class,
        BuildCommand.class, UpdateCommand.class, ServiceCommand.class, TestCommand.class, RunCommand.class})
public final class AgentCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line with every subcommand; {@code run} is svc's own {@code svc run}, hidden (the local fallback). */
  public static CommandLine commandLine() {
    CommandLine line = new CommandLine(new AgentCommand());
    line.getSubcommands().get("run").getCommandSpec().usageMessage().hidden(true);
    return line;
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
