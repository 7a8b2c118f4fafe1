package dev.svc.agent.cli;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.core.home.SvcHome;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --home} and {@code --config}, shared by every command that reads the agent's files: two
 * agents on one machine differ by home (and port), so each command must be pointed at one.
 */
public final class HomeOptions {

  @Option(names = "--home", paramLabel = "DIR", description = "The agent's home directory (default: ~/.svc).")
  String home;

  @Option(names = "--config", paramLabel = "FILE", description = "The agent configuration (default: <home>/agent.yaml).")
  String config;

  public HomeOptions() {
  }

  /** For callers that build the options themselves (tests, other commands). */
  public HomeOptions(String home, String config) {
    this.home = home;
    this.config = config;
  }

  public AgentHome home() {
    return home == null || home.isBlank() ? AgentHome.defaultHome()
        : new AgentHome(SvcHome.expand(home).toAbsolutePath().normalize());
  }

  /** Whether no {@code --home} (or the default one) was given: the systemd unit name depends on it. */
  public boolean isDefaultHome() {
    return home().root().equals(AgentHome.defaultHome().root());
  }

  public Path configFile() {
    return config == null || config.isBlank() ? home().config() : SvcHome.expand(config).toAbsolutePath().normalize();
  }

  /** Whether {@code --config} names a file other than the home's own agent.yaml. */
  public boolean hasCustomConfig() {
    return !configFile().equals(home().config());
  }

  /** The configuration; IllegalArgumentException with what to do when it is missing or malformed. */
  public AgentConfig loadConfig() {
    return AgentConfig.load(configFile());
  }
}
