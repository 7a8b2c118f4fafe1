package dev.svc.bench.quality;

import java.nio.file.Path;

/** A quality benchmark's dataset is not where it should be: the benchmark fails with this message. */
public final class DatasetMissingException extends Exception {

  public DatasetMissingException(String benchmark, Path dir, String expected) {
    super("Dataset for " + benchmark + " not found: expected " + expected + " under " + dir
        + " (put the public " + benchmark + " files there or pass --dataset-dir)");
  }
}
