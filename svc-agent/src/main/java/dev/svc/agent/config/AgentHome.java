package dev.svc.agent.config;

import dev.svc.core.home.SvcHome;
import java.nio.file.Path;

/**
 * The agent's files under its home ({@code ~/.svc} unless {@code --home} says otherwise): two
 * agents on one machine differ by home and port.
 */
public final class AgentHome {

  private final SvcHome home;

  public AgentHome(Path root) {
    this.home = new SvcHome(root);
  }

  public static AgentHome defaultHome() {
    return new AgentHome(SvcHome.defaultHome().root());
  }

  public SvcHome svcHome() {
    return home;
  }

  public Path root() {
    return home.root();
  }

  /** {@code agent.yaml}: server, token, name, port, storage, TLS files. Owner-only: it holds the token. */
  public Path config() {
    return home.agentConfig();
  }

  /** The running daemon's process id. */
  public Path pid() {
    return home.agentPid();
  }

  /** The daemon's rotating log, {@code logs/agent.log} (5 MB × 3). */
  public Path log() {
    return home.logs().resolve("agent.log");
  }

  public Path certs() {
    return home.certs();
  }

  /** The client certificate, its key and the server's CA, written by {@code init}. */
  public Path clientCertificate() {
    return certs().resolve("client.pem");
  }

  public Path clientKey() {
    return certs().resolve("client-key.pem");
  }

  public Path caCertificate() {
    return certs().resolve("ca.pem");
  }

  /** The CA and server certificate of the agent's own HTTPS API (made at init, or at the first start). */
  public Path apiCertificates() {
    return certs().resolve("api");
  }

  /** The CA that the agent's API certificate chains to: what {@code status} and {@code test stop} trust. */
  public Path apiCa() {
    return apiCertificates().resolve("ca.pem");
  }

  /** What is owed to the server (log batches, status changes, results) until it accepts it. */
  public Path spool() {
    return root().resolve("spool");
  }

  /** One record per command the engine accepted ({@code <command_id>.json}). */
  public Path jobs() {
    return root().resolve("jobs");
  }

  /** The last settings the server sent, so that a restart without the server keeps them. */
  public Path settingsCache() {
    return root().resolve("agent-settings.json");
  }

  /** Where benchmark outputs ({@code metrics.json} and companions) land, one directory per command. */
  public Path results() {
    return home.results();
  }

  public Path defaultModels() {
    return home.models();
  }
}
