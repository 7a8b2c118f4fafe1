package dev.svc.server.cli;

import dev.svc.bench.cli.RunCommand;
import dev.svc.core.SvcVersion;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The `svc` command line. */
@Command(name = "svc", mixinStandardHelpOptions = true, versionProvider = SvcCommand.Version.class,
    description = "Runs and records benchmarks of LLM inference engines.",
    subcommands = {WebCommand.class, RunCommand.class, CertsCommand.class, EnginesCommand.class})
public final class SvcCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line, with the subcommands of the modules on the class path ({@link SvcSubcommand}). */
  public static CommandLine commandLine() {
    CommandLine line = new CommandLine(new SvcCommand());
    ServiceLoader.load(SvcSubcommand.class).forEach(line::addSubcommand);
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
      return new String[] {SvcVersion.NAME + " " + SvcVersion.version()};
    }
  }
}
