package dev.svc.core.events;

import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;

/** {@code {"test_id"}}, sent to {@link EventAddresses#SIMULATOR_RUN}: simulate that test on its test agent. */
public record SimulationRequest(String testId) {

  public static SimulationRequest parse(JsonObject json) {
    return new SimulationRequest(Fields.requireString(json, "test_id"));
  }

  public JsonObject toJson() {
    return new JsonObject().put("test_id", testId);
  }
}
