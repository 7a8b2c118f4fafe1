package dev.svc.bench.emulator;

/**
 * The timing and output of the engine emulator: the first token {@code ttftMs} after the request
 * arrives, then one token every {@code itlMs}, {@code tokens} tokens per response (capped by the
 * request's {@code max_tokens}), each gap varied uniformly by up to ±{@code jitterMs} (seeded).
 * {@code answers} decides the text of a response (null: numbered filler words). With {@code stamps},
 * each streamed token's text is instead the emulator's monotonic clock ({@link System#nanoTime()})
 * when that chunk was written: a client on the same host reads the clock in its own arrival time
 * and measures its own delay per chunk (the load-generator benchmark does).
 */
public record EmulatorOptions(String host, int port, double ttftMs, double itlMs, int tokens, double jitterMs, long seed,
    AnswerBook answers, boolean stamps) {

  public EmulatorOptions(String host, int port, double ttftMs, double itlMs, int tokens, double jitterMs, long seed,
      AnswerBook answers) {
    this(host, port, ttftMs, itlMs, tokens, jitterMs, seed, answers, false);
  }

  public EmulatorOptions {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("Port must be 0..65535, got " + port);
    }
    if (ttftMs < 0 || itlMs < 0 || jitterMs < 0) {
      throw new IllegalArgumentException("Delays must not be negative");
    }
    if (tokens < 1) {
      throw new IllegalArgumentException("Tokens per response must be at least 1, got " + tokens);
    }
    if (jitterMs > itlMs || jitterMs > ttftMs) {
      throw new IllegalArgumentException("Jitter (" + jitterMs + " ms) must not exceed the TTFT or the inter-token delay");
    }
  }

  /** No delays, 16 tokens: the emulator as fast as it can go. */
  public static EmulatorOptions instant(int port) {
    return new EmulatorOptions("127.0.0.1", port, 0, 0, 16, 0, 1, null);
  }

  public EmulatorOptions withTiming(double ttft, double itl, int count) {
    return new EmulatorOptions(host, port, ttft, itl, count, jitterMs, seed, answers, stamps);
  }

  public EmulatorOptions withAnswers(AnswerBook book) {
    return new EmulatorOptions(host, port, ttftMs, itlMs, tokens, jitterMs, seed, book, stamps);
  }

  /** The same options, with each streamed token's text the emulator's clock when it was written. */
  public EmulatorOptions withStamps() {
    return new EmulatorOptions(host, port, ttftMs, itlMs, tokens, jitterMs, seed, answers, true);
  }
}
