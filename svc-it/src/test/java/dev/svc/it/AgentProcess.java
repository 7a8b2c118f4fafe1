package dev.svc.it;

import dev.svc.agent.config.AgentConfig;
import dev.svc.engines.lifecycle.LoopbackPort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A real {@code svc-agent} as a user runs it, in its own JVM with its own HOME (so its home is
 * {@code <HOME>/.svc}) and port: provisioned on the server, enrolled with {@code svc-agent init}
 * (CA pinned by fingerprint, client certificate from the server), then {@code svc-agent start
 * --foreground}. It can be killed with SIGKILL and started again.
 */
public final class AgentProcess implements AutoCloseable {

  private final ServerProcess server;
  private final Path dir;
  private final ServerProcess.Provisioned provisioned;
  private final int port;
  private final java.util.Map<String, String> environment = new java.util.TreeMap<>();
  private Process process;

  private AgentProcess(ServerProcess server, Path dir, ServerProcess.Provisioned provisioned, int port) {
    this.server = server;
    this.dir = dir;
    this.provisioned = provisioned;
    this.port = port;
  }

  /** Provisions {@code name} on the server and runs {@code svc-agent init} for it (not started yet). */
  public static AgentProcess enrol(ServerProcess server, String name) {
    return enrol(server, name, List.of(server.url()));
  }

  /**
   * Provisions {@code name} on {@code server} and runs {@code svc-agent init --server} with {@code
   * servers} (a cluster's nodes, in the order the agent tries them), not started yet.
   */
  public static AgentProcess enrol(ServerProcess server, String name, List<java.net.URI> servers) {
    try {
      Path dir = Files.createTempDirectory("svc-it-agent-");
      ServerProcess.Provisioned provisioned = server.provision(name);
      AgentProcess agent = new AgentProcess(server, dir, provisioned, LoopbackPort.free());
      // as an operator should: the token in a file, never on the command line
      Path tokenFile = Files.writeString(dir.resolve("agent-token"), provisioned.token() + "\n");
      String urls = String.join(",", servers.stream().map(java.net.URI::toString).toList());
      Processes.Run init = agent.cli("init", "--server", urls, "--token-file", tokenFile.toString(),
          "--name", name, "--port", String.valueOf(agent.port), "--ca-fingerprint", server.caFingerprint());
      if (init.exit() != 0) {
        throw new AssertionError("svc-agent init failed: " + init);
      }
      return agent;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Rewrites agent.yaml (e.g. to point {@code nvidia_smi} or {@code mount} at a stand-in). */
  public AgentProcess configure(UnaryOperator<AgentConfig> change) {
    change.apply(config()).write(home().resolve("agent.yaml"));
    return this;
  }

  /** Writes {@code engines.yaml} into the agent's home (e.g. llama_cpp from the local CPU image). */
  public AgentProcess engines(String yaml) {
    try {
      Files.writeString(home().resolve("engines.yaml"), yaml);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return this;
  }

  /** Sets a variable of the agent's environment from its next start on (e.g. {@code DOCKER_HOST}). */
  public AgentProcess environment(String name, String value) {
    environment.put(name, value);
    return this;
  }

  /** {@code svc-agent start --foreground} in the background; returns once the agent's own API answers. */
  public AgentProcess start() {
    try {
      ProcessBuilder builder = Processes.java(dir, "dev.svc.agent.AgentCommand",
          List.of("start", "--foreground", "--home", home().toString()));
      builder.environment().putAll(environment);
      process = builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("agent-console.log").toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Processes.await("agent " + name() + " to answer on port " + port, Duration.ofSeconds(90), () -> {
      if (!process.isAlive()) {
        throw new AssertionError("The agent exited with " + process.exitValue() + ":\n" + logTail());
      }
      return local(null).status() == 200;
    });
    return this;
  }

  /** The agent's own API (protocol.md §8) at 127.0.0.1, trusting the agent's API CA (certs/api/ca.pem); -1 status when it does not answer. */
  public Http.Response local(String path) {
    try {
      return new Http(java.net.URI.create("https://127.0.0.1:" + port), provisioned.token(), home().resolve("certs/api/ca.pem"))
          .get(path == null ? "/api/status" : path);
    } catch (RuntimeException e) {
      return new Http.Response(-1, String.valueOf(e.getMessage()));
    }
  }

  /** Runs an {@code svc-agent} command for this agent's home (HOME set, {@code --home} added after the command words). */
  public Processes.Run cli(String... args) {
    List<String> command = new ArrayList<>(List.of(args));
    int words = 0;
    while (words < command.size() && !command.get(words).startsWith("-")) {
      words++;
    }
    command.addAll(words, List.of("--home", home().toString()));
    return Processes.run(Processes.java(dir, "dev.svc.agent.AgentCommand", command), Duration.ofMinutes(5));
  }

  public void kill9() {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** SIGTERM and wait (the agent stops its benchmark and flushes what it can). */
  public void stop() {
    Processes.stop(process, Duration.ofSeconds(40));
  }

  /** The agent process's id. */
  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  public String id() {
    return provisioned.id();
  }

  public String name() {
    return provisioned.name();
  }

  public String token() {
    return provisioned.token();
  }

  public int port() {
    return port;
  }

  /** The agent's HOME; its svc home is {@link #home()}. */
  public Path dir() {
    return dir;
  }

  public Path home() {
    return dir.resolve(".svc");
  }

  /** The agent's model storage directory, with {@code ~} meaning the agent's HOME (not this JVM's). */
  public Path modelStorage() {
    String configured = config().modelStorageDir();
    return configured.equals("~") ? dir : configured.startsWith("~/") ? dir.resolve(configured.substring(2)) : Path.of(configured);
  }

  public AgentConfig config() {
    return AgentConfig.load(home().resolve("agent.yaml"));
  }

  /** The server as this agent sees it: its token, the server's CA. */
  public Http server() {
    return server.as(provisioned.token());
  }

  /** The daemon's own log ({@code <home>/logs/agent.log}); empty before it wrote one. */
  public String log() {
    try {
      return Files.readString(home().resolve("logs/agent.log"));
    } catch (IOException e) {
      return "";
    }
  }

  public String logTail() {
    StringBuilder out = new StringBuilder();
    for (Path log : List.of(dir.resolve("agent-console.log"), home().resolve("logs/agent.log"))) {
      try {
        List<String> lines = Files.readAllLines(log);
        out.append("--- ").append(log).append('\n')
            .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()))).append('\n');
      } catch (IOException e) {
        // not written (yet)
      }
    }
    return out.toString();
  }

  @Override
  public void close() {
    stop();
    Processes.deleteTree(dir);
  }
}
