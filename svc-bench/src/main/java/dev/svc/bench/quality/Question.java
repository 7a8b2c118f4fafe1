package dev.svc.bench.quality;

/** One item of a quality dataset: the prompt sent to the engine and the answer that scores it. */
public record Question(String id, String prompt, String expected) {
}
