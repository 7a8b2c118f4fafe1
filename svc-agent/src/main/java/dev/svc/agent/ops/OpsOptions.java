package dev.svc.agent.ops;

import dev.svc.agent.config.AgentConfig;
import java.nio.file.Files;
import java.nio.file.Path;

/** What {@code preflight}, {@code build} and {@code update} share: where the agent's files are and which server to use. */
public final class OpsOptions {

  private OpsOptions() {}

  /**
   * Keeps the Docker transport's retry notices (INFO, one per retried request) off the command's
   * stderr, where only the command's own one-line error belongs. Call before the first Docker client.
   */
  public static void quietDockerTransport() {
    if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.hc") == null) {
      System.setProperty("org.slf4j.simpleLogger.log.org.apache.hc", "warn");
    }
  }

  /**
   * The configuration to reach the server with: the agent's own (CA, client certificate, token),
   * its server replaced by {@code server} when given; with no configuration, just {@code server}.
   *
   * @throws IllegalArgumentException when neither names a server, or {@code server} is no http(s) URL
   */
  public static AgentConfig connection(Path configFile, String server) {
    if (server != null && !(server.startsWith("https://") || server.startsWith("http://"))) {
      throw new IllegalArgumentException("--server must be an http:// or https:// URL, not '" + server + "'");
    }
    if (!Files.isRegularFile(configFile)) {
      if (server == null) {
        throw new IllegalArgumentException(
            "No agent configuration at " + configFile + ": run svc-agent init first, or give --server");
      }
      return new AgentConfig(server, "", "svc-agent", AgentConfig.DEFAULT_PORT, null, null, null, null, null, null, null, null);
    }
    AgentConfig c = AgentConfig.load(configFile);
    if (server == null) {
      return c;
    }
    return new AgentConfig(server, c.token(), c.name(), c.port(), c.bind(), c.modelStorageDir(), c.shareSource(), c.shareMount(),
        c.caFingerprint(), c.tls(), c.nvidiaSmi(), c.mount());
  }
}
