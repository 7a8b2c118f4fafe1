package dev.svc.bench.run;

import dev.svc.bench.measure.RequestRecord;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * One benchmark's entry of metrics.json's {@code results}, and the measured requests behind it.
 *
 * @param passed whether it passed, as the entry says under {@code passed}
 * @param valid whether its figures are the engine's, as the entry says under {@code valid} (a quality
 *     benchmark's, which has no {@code valid}, always are)
 */
public record BenchmarkOutcome(JsonObject result, boolean passed, boolean valid, List<RequestRecord> records) {
}
