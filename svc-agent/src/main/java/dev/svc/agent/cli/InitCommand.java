package dev.svc.agent.cli;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.enrol.Enrolment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code svc-agent init}: enrols this host with a server (see {@link Enrolment}). */
@Command(name = "init", mixinStandardHelpOptions = true,
    description = {"Enrol this host: pin the server's CA, obtain a client certificate signed by it (a key pair made here,"
        + " a certificate signing request sent with the token) and write agent.yaml.",
        "On a server with a global token, the agent needs a token the server issued for it (Agents page, or"
        + " POST /api/v1/agents): --token-file, else the environment variable " + InitCommand.TOKEN_VARIABLE + "."})
public final class InitCommand implements Callable<Integer> {

  static final String TOKEN_VARIABLE = "SVC_AGENT_TOKEN";

  @Option(names = "--server", required = true, paramLabel = "URL[,URL...]", description = "Server URL, e.g."
      + " https://svc.lab:8080; for a clustered server its nodes' URLs separated by commas (or one load-balancer URL).")
  String server;

  @Option(names = "--token", paramLabel = "TOKEN", description = "The agent's token. It shows in `ps` and shell history:"
      + " prefer --token-file or " + TOKEN_VARIABLE + ".")
  String token;

  @Option(names = "--token-file", paramLabel = "FILE", description = "Read the agent's token from FILE (surrounding"
      + " whitespace removed). Without --token or --token-file: " + TOKEN_VARIABLE + ", else no token.")
  Path tokenFile;

  @Option(names = "--name", description = "Agent name (default: this host's name).")
  String name;

  @Option(names = "--port", defaultValue = "8090", description = "Port of the agent's own HTTPS API (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = AgentConfig.DEFAULT_BIND,
      description = "Address the agent's own API listens on (default: ${DEFAULT-VALUE}, this host only; 0.0.0.0 or one"
          + " address of this host to stream logs to other hosts).")
  String bind;

  @Option(names = "--model-dir", defaultValue = "~/.svc/models", description = "Local model storage (default: ${DEFAULT-VALUE}).")
  String modelDir;

  @Option(names = "--share-source", defaultValue = "", description = "NFS share holding models, host:/path (default: none).")
  String shareSource;

  @Option(names = "--share-mount", defaultValue = "", description = "Where that share is mounted here (default: none).")
  String shareMount;

  @Option(names = "--ca-fingerprint", description = "SHA-256 fingerprint of the server's CA, as `svc web` printed it at first"
      + " launch. Without it, init shows the fingerprint and asks; off a terminal it refuses.")
  String caFingerprint;

  @Mixin
  HomeOptions homeOptions = new HomeOptions();

  /** The process environment; tests give their own. */
  Function<String, String> env = System::getenv;

  @Option(names = "--force", description = "Replace an existing agent.yaml and client certificate.")
  boolean force;

  @Override
  public Integer call() {
    AgentHome agentHome = homeOptions.home();
    if (port < 1 || port > 65535) {
      System.err.println("svc-agent init: --port must be from 1 to 65535");
      return 2;
    }
    if (!AgentConfig.isBindAddress(bind)) {
      System.err.println("svc-agent init: --bind must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name, not '"
          + bind + "'");
      return 2;
    }
    String agentToken;
    try {
      agentToken = token();
    } catch (IllegalArgumentException e) {
      System.err.println("svc-agent init: " + e.getMessage());
      return 2;
    }
    String agentName = name != null ? name : Enrolment.hostname();
    try {
      AgentConfig config = new Enrolment(agentHome, homeOptions.configFile(), System.out, Enrolment.consoleQuestion())
          .enrol(server, agentToken, agentName, port, bind, modelDir, shareSource, shareMount, caFingerprint, force);
      System.out.println("Wrote " + homeOptions.configFile() + " for agent '" + config.name() + "'.");
      System.out.println("Next: svc-agent preflight" + homeArgument(homeOptions) + ", then svc-agent start" + homeArgument(homeOptions));
      return 0;
    } catch (Enrolment.EnrolmentException e) {
      System.err.println("svc-agent init: " + e.getMessage());
      return 1;
    }
  }

  /** The token from --token, --token-file or the environment, "" for none; IllegalArgumentException saying why not. */
  private String token() {
    if (token != null && tokenFile != null) {
      throw new IllegalArgumentException("give only one of --token, --token-file");
    }
    if (token != null) {
      return token;
    }
    if (tokenFile != null) {
      String text;
      try {
        text = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
      } catch (NoSuchFileException e) {
        throw new IllegalArgumentException("cannot read --token-file " + tokenFile + ": no such file");
      } catch (AccessDeniedException e) {
        throw new IllegalArgumentException("cannot read --token-file " + tokenFile + ": permission denied");
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read --token-file " + tokenFile + ": " + e.getMessage());
      }
      if (text.isEmpty()) {
        throw new IllegalArgumentException("--token-file " + tokenFile + " is empty");
      }
      return text;
    }
    String fromEnvironment = env.apply(TOKEN_VARIABLE);
    return fromEnvironment == null ? "" : fromEnvironment.strip();
  }

  private static String homeArgument(HomeOptions options) {
    return options.isDefaultHome() ? "" : " --home " + options.home().root();
  }
}
