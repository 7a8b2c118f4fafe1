package dev.svc.server.http;

import dev.svc.server.store.AgentStore;
import io.vertx.core.Future;

/** Rules on agent names that registration, provisioning and renaming share. */
final class AgentNames {

  private AgentNames() {
  }

  /** Heartbeats and result reports find an agent by id or name: a name may not be another agent's id. */
  static Future<Void> requireNameIsNoAgentId(AgentStore agents, String name) {
    return agents.byIdIncludingDeleted(name).map(other -> {
      if (other.isPresent()) {
        throw ApiError.conflict("The name '" + name + "' is the id of another agent; choose another name");
      }
      return null;
    });
  }
}
