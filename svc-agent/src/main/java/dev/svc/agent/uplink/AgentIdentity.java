package dev.svc.agent.uplink;

/**
 * The id the server knows this agent by: unknown until the first registration answers, replaced
 * when a re-registration (after a 404) or a heartbeat names another canonical id. Shared by the
 * control verticle, which learns it, and the uplink, which posts results under it.
 */
public final class AgentIdentity {

  private final String name;
  private volatile String agentId;

  public AgentIdentity(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  /** The canonical id, or null before the first registration. */
  public String agentId() {
    return agentId;
  }

  public void adopt(String id) {
    this.agentId = id;
  }
}
