package dev.svc.bench.run;

import dev.svc.bench.measure.RequestRecord;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What a performance benchmark's load gave: its metrics, every measured request in the order run,
 * and why the result is invalid (null when it is valid).
 */
record Measurement(JsonObject metrics, List<RequestRecord> records, String invalidReason) {
}
