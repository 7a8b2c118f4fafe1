package dev.svc.server.simulator;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonObject;
import java.util.random.RandomGenerator;

/**
 * Made-up quality metrics (mmlu, gsm8k, truthfulqa, hellaswag): an accuracy in the range models of
 * that size reach on that dataset, nudged up for bigger models, with {@code correct / total} equal
 * to the accuracy.
 */
final class QualityMetrics {

  private QualityMetrics() {
  }

  static BenchmarkOutcome generate(BenchmarkProfile profile, SimulatedHost host, double billions,
      RandomGenerator random) {
    double[] range = accuracyRange(profile.name());
    double sizeBonus = 0.03 * (Math.log(billions / 8) / Math.log(2));
    double accuracy = Math.max(0.05, Math.min(0.95, random.nextDouble(range[0], range[1]) + sizeBonus));
    int total = profile.iterations();
    int correct = (int) Math.round(accuracy * total);
    double speed = GpuSpecs.speed(host.gpuModel()) * (host.hasGpu() ? 1 : 0.05);
    double perQuestionS = (0.02 + 0.0025 * billions / speed) * Math.max(1, profile.maxTokens() / 8.0)
        * random.nextDouble(0.8, 1.2);
    JsonObject metrics = new JsonObject()
        .put(MetricKeys.ACCURACY, (double) correct / total)
        .put(MetricKeys.CORRECT, correct)
        .put(MetricKeys.TOTAL, total);
    return new BenchmarkOutcome(metrics, total * perQuestionS);
  }

  /** Accuracy of an 8B instruct model on each dataset, low to high. */
  private static double[] accuracyRange(String benchmark) {
    switch (benchmark) {
      case "mmlu":
        return new double[] {0.58, 0.70};
      case "gsm8k":
        return new double[] {0.50, 0.80};
      case "truthfulqa":
        return new double[] {0.38, 0.56};
      case "hellaswag":
        return new double[] {0.72, 0.84};
      default:
        return new double[] {0.40, 0.70};
    }
  }
}
