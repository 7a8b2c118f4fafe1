package dev.svc.agent.cli;

import dev.svc.agent.config.AgentConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code svc-agent service install|status|uninstall}: a systemd unit that starts the agent at boot
 * and restarts it when it fails. Where systemd does not run (containers, WSL without systemd, this
 * kind of build host) these say so and exit 1; {@code install --print} or {@code --no-systemctl}
 * still produce the unit, for installing it by hand.
 */
@Command(name = "service", mixinStandardHelpOptions = true, description = "Manage the systemd unit of the agent.",
    subcommands = {ServiceCommand.Install.class, ServiceCommand.Status.class, ServiceCommand.Uninstall.class})
public final class ServiceCommand implements Callable<Integer> {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(System.err);
    return 2;
  }

  /** Options every subcommand shares. */
  static class Common {
    @Mixin
    HomeOptions homeOptions = new HomeOptions();

    @Option(names = "--unit-dir", paramLabel = "DIR", description = "Where unit files live (default: /etc/systemd/system).")
    Path unitDir = SystemdUnit.SYSTEM_UNIT_DIR;

    @Option(names = "--no-systemctl", description = "Only write or remove the unit file; do not run systemctl.")
    boolean noSystemctl;

    /** Where systemd keeps its runtime state; a test points it at a directory that does not exist. */
    @Option(names = "--systemd-runtime", hidden = true)
    Path systemdRuntime = SystemdUnit.SYSTEMD_RUNTIME;

    String unitName(AgentConfig config) {
      return SystemdUnit.unitName(homeOptions.isDefaultHome(), config.name());
    }

    boolean systemdAbsent(String command) {
      if (Files.isDirectory(systemdRuntime)) {
        return false;
      }
      System.err.println("svc-agent service " + command + ": systemd is not running on this host (no " + systemdRuntime
          + "); run the agent with 'svc-agent start', or write the unit with 'svc-agent service install --print'");
      return true;
    }

    AgentConfig config(String command) {
      try {
        return homeOptions.loadConfig();
      } catch (RuntimeException e) {
        System.err.println("svc-agent service " + command + ": " + e.getMessage());
        return null;
      }
    }
  }

  /** Runs systemctl with the terminal's streams; its exit code, or -1 with a message when it cannot run. */
  static int systemctl(String... args) {
    List<String> command = new ArrayList<>();
    command.add("systemctl");
    command.addAll(List.of(args));
    try {
      Process process = new ProcessBuilder(command).inheritIO().start();
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        System.err.println("svc-agent service: '" + String.join(" ", command) + "' did not finish within 120 s");
        return -1;
      }
      return process.exitValue();
    } catch (IOException e) {
      System.err.println("svc-agent service: could not run systemctl: " + e.getMessage());
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  @Command(name = "install", mixinStandardHelpOptions = true,
      description = "Write the unit, reload systemd, enable and start it.")
  static final class Install extends Common implements Callable<Integer> {

    @Option(names = "--print", description = "Print the unit instead of installing it.")
    boolean print;

    @Option(names = "--user", paramLabel = "NAME", description = "The account the agent runs as (default: the invoking user).")
    String user;

    @Option(names = "--insecure", description = "Start the agent with --insecure (development only).")
    boolean insecure;

    @Override
    public Integer call() {
      AgentConfig config = config("install");
      if (config == null) {
        return 1;
      }
      if (!print && !noSystemctl && systemdAbsent("install")) {
        return 1;
      }
      SystemdUnit unit;
      try {
        unit = SystemdUnit.create(homeOptions.isDefaultHome(), config.name(), SystemdUnit.launcher(),
            homeOptions.home().root(), homeOptions.configFile(), homeOptions.hasCustomConfig(), insecure, account());
      } catch (IllegalArgumentException e) {
        System.err.println("svc-agent service install: " + e.getMessage());
        return 1;
      }
      if (print) {
        System.out.print(unit.text());
        return 0;
      }
      Path file = unitDir.resolve(unit.name());
      try {
        Files.createDirectories(unitDir);
        Files.writeString(file, unit.text());
      } catch (IOException e) {
        System.err.println("svc-agent service install: could not write " + file + ": " + e.getMessage()
            + (unitDir.equals(SystemdUnit.SYSTEM_UNIT_DIR) ? " (run it as root: sudo svc-agent service install --home "
            + homeOptions.home().root() + ")" : ""));
        return 1;
      }
      System.out.println("Wrote " + file);
      if (noSystemctl) {
        return 0;
      }
      if (systemctl("daemon-reload") != 0 || systemctl("enable", "--now", unit.name()) != 0) {
        System.err.println("svc-agent service install: systemctl failed; the unit is at " + file);
        return 1;
      }
      System.out.println("Enabled and started " + unit.name());
      return 0;
    }

    /** The invoking user; under sudo the one who ran sudo, since the agent's home is theirs. */
    private String account() {
      if (user != null && !user.isBlank()) {
        return user;
      }
      String sudoUser = System.getenv("SUDO_USER");
      return sudoUser != null && !sudoUser.isBlank() ? sudoUser : System.getProperty("user.name");
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true, description = "Show the unit's state (systemctl status).")
  static final class Status extends Common implements Callable<Integer> {

    @Override
    public Integer call() {
      AgentConfig config = config("status");
      if (config == null) {
        return 1;
      }
      Path file = unitDir.resolve(unitName(config));
      System.out.println("Unit: " + file + (Files.isRegularFile(file) ? "" : " (not installed)"));
      if (noSystemctl) {
        return Files.isRegularFile(file) ? 0 : 3;
      }
      if (systemdAbsent("status")) {
        return 1;
      }
      int code = systemctl("status", "--no-pager", unitName(config));
      return code < 0 ? 1 : code;
    }
  }

  @Command(name = "uninstall", mixinStandardHelpOptions = true, description = "Stop and disable the unit and remove it.")
  static final class Uninstall extends Common implements Callable<Integer> {

    @Override
    public Integer call() {
      AgentConfig config = config("uninstall");
      if (config == null) {
        return 1;
      }
      if (!noSystemctl && systemdAbsent("uninstall")) {
        return 1;
      }
      String name = unitName(config);
      Path file = unitDir.resolve(name);
      if (!Files.isRegularFile(file)) {
        System.out.println("Not installed: no " + file);
        return 0;
      }
      if (!noSystemctl && systemctl("disable", "--now", name) != 0) {
        System.err.println("svc-agent service uninstall: systemctl disable --now " + name + " failed");
        return 1;
      }
      try {
        Files.delete(file);
      } catch (IOException e) {
        System.err.println("svc-agent service uninstall: could not remove " + file + ": " + e.getMessage());
        return 1;
      }
      if (!noSystemctl && systemctl("daemon-reload") != 0) {
        System.err.println("svc-agent service uninstall: systemctl daemon-reload failed");
        return 1;
      }
      System.out.println("Removed " + file);
      return 0;
    }
  }
}
