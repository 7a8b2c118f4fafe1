package dev.svc.bench.client;

import io.vertx.core.json.JsonObject;

/** One request to send: the path, the JSON body, whether it streams, and how to read the answer. */
public record RequestSpec(String path, JsonObject body, boolean streaming, StreamDecoder decoder) {
}
