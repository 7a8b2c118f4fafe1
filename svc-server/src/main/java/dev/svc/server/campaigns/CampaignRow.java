package dev.svc.server.campaigns;

/**
 * One run of a campaign: a model on an engine with a benchmark, at position {@code index} (0-based)
 * of the campaign's models × engines × benchmarks matrix.
 */
record CampaignRow(int index, String modelName, String modelPath, String engine, String benchmark, String suite,
    boolean force) {

  /** "model × engine × benchmark", as the campaign log names a row. */
  String label() {
    return modelName + " × " + engine + " × " + benchmark;
  }
}
