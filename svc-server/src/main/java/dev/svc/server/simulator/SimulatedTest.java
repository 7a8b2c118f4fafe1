package dev.svc.server.simulator;

import dev.svc.server.store.StoredQuickTest;

/** What a simulation plans from: the quick test's model, engine, benchmark and suite. */
public record SimulatedTest(String modelPath, String engineName, String benchmarkName, String suiteName) {

  public SimulatedTest {
    benchmarkName = benchmarkName == null || benchmarkName.isEmpty() ? "throughput" : benchmarkName;
    suiteName = suiteName == null || suiteName.isEmpty() ? "quick" : suiteName;
  }

  static SimulatedTest of(StoredQuickTest test) {
    return new SimulatedTest(test.modelPath(), test.engineName(), test.benchmarkName(), test.suiteName());
  }
}
