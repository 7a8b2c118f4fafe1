package dev.svc.server.http;

import dev.svc.core.Timestamps;
import dev.svc.core.domain.AgentSettings;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventType;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;

/**
 * Hands work to an agent in its heartbeat response: pending commands first, then at most one
 * test — only when the agent has no test dispatched or running — with a lease.
 */
final class Dispatcher {

  static final int MIN_LEASE_S = 90;

  private final ApiContext api;

  Dispatcher(ApiContext api) {
    this.api = api;
  }

  /** The lease of a dispatched test: 3 × the heartbeat interval, at least 90 s. */
  static long leaseSeconds(int heartbeatIntervalS) {
    return Math.max(MIN_LEASE_S, 3L * heartbeatIntervalS);
  }

  Future<JsonArray> commandsFor(String agentId, int heartbeatIntervalS) {
    JsonArray commands = new JsonArray();
    return api.commands().take(agentId).compose(pending -> {
      for (JsonObject c : pending) {
        JsonObject payload = Views.parseObject(c.getString("payload"));
        JsonObject command = new JsonObject().put("command_id", c.getString("id")).put("type", c.getString("type"))
            .put("payload", payload == null ? new JsonObject() : payload);
        if (c.getString("test_id") != null) {
          command.put("test_id", c.getString("test_id"));
        }
        commands.add(command);
      }
      return api.tests().hasActiveTest(agentId);
    }).compose(busy -> busy ? Future.succeededFuture(commands) : dispatchOldest(agentId, heartbeatIntervalS, commands));
  }

  private Future<JsonArray> dispatchOldest(String agentId, int intervalS, JsonArray commands) {
    return api.tests().oldestQueued(agentId).compose(next -> {
      if (next.isEmpty()) {
        return Future.succeededFuture(commands);
      }
      JsonObject test = next.get();
      String lease = Timestamps.format(Instant.now().plusSeconds(leaseSeconds(intervalS)));
      return api.tests().dispatch(test.getString("id"), lease).compose(won -> {
        if (!won) {
          return Future.succeededFuture(commands);
        }
        commands.add(runTest(test));
        return api.events().append(test.getString("id"), EventType.STATUS, new JsonObject()
            .put("test_id", test.getString("id")).put("status", QuickTestStatus.DISPATCHED.wireName())
            .put("command_id", test.getString("command_id"))).map(v -> commands);
      });
    });
  }

  static JsonObject runTest(JsonObject test) {
    return new JsonObject()
        .put("command_id", test.getString("command_id"))
        .put("test_id", test.getString("id"))
        .put("type", "run_test")
        .put("payload", new JsonObject()
            .put("test_id", test.getString("id"))
            .put("model_path", test.getString("model_path"))
            .put("engine_name", test.getString("engine_name"))
            .put("benchmark_name", test.getString("benchmark_name"))
            .put("suite_name", test.getString("suite_name"))
            .put("force", Views.flag(test.getValue("force"))));
  }

  static int interval(java.util.Map<String, String> settings) {
    try {
      return Integer.parseInt(settings.getOrDefault(AgentSettings.HEARTBEAT_INTERVAL_S, "30"));
    } catch (NumberFormatException e) {
      return AgentSettings.DEFAULT_HEARTBEAT_S;
    }
  }
}
