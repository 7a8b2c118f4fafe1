package dev.svc.server.simulator;

import io.vertx.core.json.JsonObject;

/**
 * One simulated benchmark: its {@code metrics} object and how long it would have taken.
 *
 * @param metrics the {@code metrics} of the benchmark's entry in {@code results}
 * @param durationSeconds the measured window (performance) or the time to answer the dataset (quality)
 */
record BenchmarkOutcome(JsonObject metrics, double durationSeconds) {
}
