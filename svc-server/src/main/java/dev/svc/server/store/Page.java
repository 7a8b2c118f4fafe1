package dev.svc.server.store;

import io.vertx.core.json.JsonObject;
import java.util.List;

/** One page of rows and the total count behind it. */
public record Page(List<JsonObject> items, long total) {
}
