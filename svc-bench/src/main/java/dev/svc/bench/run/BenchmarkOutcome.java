package dev.svc.bench.run;

import dev.svc.bench.measure.RequestRecord;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** One benchmark's entry of metrics.json's {@code results}, and the measured requests behind it. */
public record BenchmarkOutcome(JsonObject result, List<RequestRecord> records) {

  public boolean passed() {
    return result.getBoolean("passed", false);
  }

  public boolean valid() {
    return result.getBoolean("valid", true);
  }
}
