package dev.svc.bench.emulator;

/** Decides the text an emulated engine answers to a prompt (deterministic, for quality-benchmark tests). */
@FunctionalInterface
public interface AnswerBook {

  /** The answer to {@code prompt}, or null to answer with filler words. */
  String answer(String prompt);
}
