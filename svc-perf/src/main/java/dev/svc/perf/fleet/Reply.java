package dev.svc.perf.fleet;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/**
 * A server's answer to one request of a virtual agent.
 *
 * @param status the HTTP status
 * @param body the body as received
 * @param latencyNanos from just before the request was written (the connection open) to the end of the body
 */
record Reply(int status, Buffer body, long latencyNanos) {

  /** The body as a JSON object, or an empty one when it is none. */
  JsonObject json() {
    try {
      return body == null || body.length() == 0 ? new JsonObject() : new JsonObject(body);
    } catch (RuntimeException e) {
      return new JsonObject();
    }
  }

  boolean ok() {
    return status / 100 == 2;
  }

  /** Worth sending again: the server was busy or failed, not a refusal. */
  boolean transientFailure() {
    return status == 408 || status == 429 || status >= 500;
  }
}
