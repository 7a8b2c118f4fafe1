package dev.svc.server.store;

import dev.svc.core.protocol.Registration;

/**
 * An agent row to insert: what the agent said of itself, and what the server decides (its id, its
 * first status, whether the server simulates it, the hash of the token bound to it).
 *
 * @param status {@code online} for a registration, {@code idle} for a test agent, {@code provisioned}
 *     for an agent the operator created before it first registers
 * @param tokenHash null for an agent without a token of its own
 */
public record NewAgent(String id, Registration registration, String status, boolean testAgent, String tokenHash,
    String tokenPrefix) {

  /** Whether the agent has been heard from: a test agent or a provisioned one has no heartbeat yet. */
  boolean heard() {
    return !testAgent && !"provisioned".equals(status);
  }
}
