package dev.svc.agent.cli;

import dev.svc.agent.AgentCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The systemd unit of an agent: {@code svc-agent.service} for the default home, and
 * {@code svc-agent-<name>.service} for any other, so that two agents of one host coexist. It runs
 * {@code start --foreground} (systemd supervises; the agent does not detach) and restarts it on
 * failure. SIGTERM is how both systemd and {@code svc-agent stop} end it, and the JVM then exits
 * 143: that is a clean stop, not a failure to restart from.
 */
public record SystemdUnit(String name, String text) {

  public static final Path SYSTEM_UNIT_DIR = Path.of("/etc/systemd/system");
  /** Present exactly when systemd is the running init system (what sd_booted(3) checks). */
  public static final Path SYSTEMD_RUNTIME = Path.of("/run/systemd/system");

  /**
   * @param defaultHome whether the agent's home is the default {@code ~/.svc}
   * @param agentName the agent's name (names the unit of a non-default home)
   * @param launcher the command that runs svc-agent: a launcher script, or java with its classpath and main class
   * @param user the account the agent runs as
   */
  public static SystemdUnit create(boolean defaultHome, String agentName, List<String> launcher, Path home,
      Path config, boolean customConfig, boolean insecure, String user) {
    String unitName = unitName(defaultHome, agentName);
    List<String> exec = new ArrayList<>(launcher);
    exec.addAll(List.of("start", "--foreground", "--home", home.toString()));
    if (customConfig) {
      exec.addAll(List.of("--config", config.toString()));
    }
    if (insecure) {
      exec.add("--insecure");
    }
    StringBuilder unit = new StringBuilder();
    unit.append("# Written by svc-agent service install\n");
    unit.append("[Unit]\n");
    unit.append("Description=svc agent ").append(escapeValue(agentName)).append(" (home ").append(escapeValue(
        home.toString())).append(")\n");
    unit.append("Wants=network-online.target\n");
    unit.append("After=network-online.target docker.service\n");
    unit.append("\n[Service]\n");
    unit.append("Type=simple\n");
    unit.append("User=").append(user).append('\n');
    unit.append("ExecStart=").append(commandLine(exec)).append('\n');
    unit.append("Restart=on-failure\n");
    unit.append("RestartSec=5\n");
    unit.append("SuccessExitStatus=143\n");
    // stopping cancels a running benchmark and removes its container first
    unit.append("TimeoutStopSec=90\n");
    unit.append("\n[Install]\n");
    unit.append("WantedBy=multi-user.target\n");
    return new SystemdUnit(unitName, unit.toString());
  }

  public static String unitName(boolean defaultHome, String agentName) {
    if (defaultHome) {
      return "svc-agent.service";
    }
    String safe = agentName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_.-]+", "-").replaceAll("^[-.]+|[-.]+$", "");
    return "svc-agent-" + (safe.isEmpty() ? "agent" : safe) + ".service";
  }

  /**
   * How to run svc-agent from a unit: the installed launcher ({@code bin/svc-agent} under
   * {@code svc.app.home}) when there is one, else this JVM with its classpath and the main class.
   */
  public static List<String> launcher() {
    String appHome = System.getProperty("svc.app.home");
    if (appHome != null && !appHome.isBlank()) {
      Path script = Path.of(appHome).toAbsolutePath().normalize().resolve("bin").resolve("svc-agent");
      if (Files.isExecutable(script)) {
        return List.of(script.toString());
      }
    }
    return List.of(StartCommand.javaBinary(), "-cp", absoluteClasspath(), AgentCommand.class.getName());
  }

  private static String absoluteClasspath() {
    List<String> entries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      entries.add(Path.of(entry).toAbsolutePath().normalize().toString());
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  /** The words of ExecStart= quoted as systemd.service(5) reads them; % and $ are escaped (specifiers, variables). */
  static String commandLine(List<String> words) {
    List<String> quoted = new ArrayList<>();
    for (String word : words) {
      String escaped = escapeValue(word).replace("$", "$$");
      boolean plain = !escaped.isEmpty() && escaped.chars().noneMatch(c -> Character.isWhitespace(c) || c == '"'
          || c == '\'' || c == '\\' || c == ';');
      quoted.add(plain ? escaped : "\"" + escaped.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
    }
    return String.join(" ", quoted);
  }

  private static String escapeValue(String value) {
    if (value.chars().anyMatch(c -> c == '\n' || c == '\r')) {
      throw new IllegalArgumentException("A value of the unit must be one line: " + value);
    }
    return value.replace("%", "%%");
  }
}
