package dev.svc.agent.cli;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.logs.AgentStatusAnswer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code svc-agent status}: the configuration (the token only by its first 8 characters) and a
 * probe of the local agent's {@code GET /api/status}. Exit codes as systemctl's: 0 running, 3 not
 * running, 1 for anything else (no configuration, an agent that is alive but does not answer).
 */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Show the configuration and probe the local agent.")
public final class StatusCommand implements Callable<Integer> {

  static final int NOT_RUNNING = 3;

  @Mixin
  HomeOptions homeOptions = new HomeOptions();

  @Override
  public Integer call() {
    AgentHome home = homeOptions.home();
    AgentConfig config;
    try {
      config = homeOptions.loadConfig();
    } catch (RuntimeException e) {
      System.err.println("svc-agent status: " + e.getMessage());
      return 1;
    }
    Map<String, String> rows = new LinkedHashMap<>();
    rows.put("Config", homeOptions.configFile().toString());
    rows.put("Server", servers(config, null));
    rows.put("Name", config.name());
    rows.put("Port", Integer.toString(config.port()));
    rows.put("Bind", config.bind());
    rows.put("Token", tokenShown(config.token()));
    rows.put("Model dir", config.modelStorageDir());
    rows.put("Share", config.shareMount().isEmpty() ? "(none)"
        : (config.shareSource().isEmpty() ? "" : config.shareSource() + " on ") + config.shareMount());
    AgentConfig.Tls tls = config.tls();
    rows.put("TLS", tls == null ? "(off)" : "cert " + tls.cert() + ", key " + tls.key() + ", ca " + tls.ca());
    rows.put("Log", home.log().toString());
    PidFile pidFile = new PidFile(home.pid());
    Optional<ProcessHandle> process;
    try {
      process = pidFile.liveAgent();
    } catch (RuntimeException e) {
      process = Optional.empty();
    }
    rows.put("PID", process.map(p -> p.pid() + " (" + pidFile.file() + ")").orElse("(none)"));

    AgentStatusAnswer status = null;
    String problem = null;
    boolean listening = true;
    try (LocalAgent local = LocalAgent.open(home, config)) {
      rows.put("Local API", local.baseUrl() + "/api/status");
      try {
        status = local.status();
      } catch (RuntimeException e) {
        listening = !LocalAgent.notListening(e);
        problem = e.getMessage();
      }
    } catch (IllegalArgumentException e) {
      problem = e.getMessage();
    }
    if (status != null) {
      rows.put("Server", servers(config, status.server()));
      rows.put("Agent", "running" + (status.name() == null ? "" : " as " + status.name()));
      rows.put("Benchmark", status.benchmarkActive() ? "active" : "idle");
      rows.put("Current test", status.currentTest().isEmpty() ? "(none)" : status.currentTest());
      rows.put("Storage", storage(status.storage()));
      print(rows);
      return 0;
    }
    if (!listening && process.isEmpty()) {
      rows.put("Agent", "not running");
      print(rows);
      return NOT_RUNNING;
    }
    rows.put("Agent", process.isPresent() ? "process " + process.get().pid() + " is alive but its local API does not"
        + " answer" : "not answering");
    print(rows);
    System.err.println("svc-agent status: " + (problem == null ? "no answer" : problem));
    return 1;
  }

  /**
   * The configured servers, the one the running agent talks to now marked when there are several
   * ({@code current} null: the agent did not say, or does not run).
   */
  static String servers(AgentConfig config, String current) {
    if (config.servers().size() == 1) {
      return config.servers().get(0);
    }
    return String.join(", ", config.servers().stream().map(s -> s.equals(current) ? s + " (current)" : s).toList());
  }

  /** The token's first 8 characters: enough to tell tokens apart, not enough to use one. */
  static String tokenShown(String token) {
    if (token == null || token.isEmpty()) {
      return "(none)";
    }
    return token.length() <= 8 ? "(set, " + token.length() + " characters)" : token.substring(0, 8) + "…";
  }

  static String storage(AgentStatusAnswer.Storage storage) {
    if (storage == null) {
      return "(not reported)";
    }
    return "free " + gb(storage.freeGb()) + " GB, used " + gb(storage.usedGb()) + " GB, "
        + (storage.modelCount() == null ? "?" : storage.modelCount().toString()) + " models";
  }

  private static String gb(Double value) {
    return value == null ? "?" : String.format(java.util.Locale.ROOT, "%.1f", value);
  }

  static void print(Map<String, String> rows) {
    int width = rows.keySet().stream().mapToInt(String::length).max().orElse(0) + 1;
    rows.forEach((key, value) -> System.out.println(String.format("%-" + width + "s %s", key + ":", value)));
  }
}
