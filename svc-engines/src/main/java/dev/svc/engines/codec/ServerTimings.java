package dev.svc.engines.codec;

/**
 * The engine's own account of a request, where it gives one (llama.cpp's {@code timings} in the
 * last streamed chunk): prompt processing time, decode time and the tokens decoded. Lets a run
 * set the client's measurements beside the server's.
 *
 * @param promptMs time spent on the prompt, up to the first token
 * @param predictedMs time spent generating, from the first token to the last
 * @param predictedTokens tokens generated, the first included
 */
public record ServerTimings(double promptMs, double predictedMs, int predictedTokens) {

  /**
   * Time per decode step: {@code predictedMs} spans the steps after the first token, which comes
   * from the prompt's own pass (llama.cpp: "the first token is free"), so N tokens took N - 1
   * steps, as in the client's TPOT. NaN with fewer than two tokens.
   */
  public double perTokenMs() {
    return predictedTokens < 2 || predictedMs <= 0 ? Double.NaN : predictedMs / (predictedTokens - 1);
  }

  /** Tokens generated per second of generation time (1000 / {@link #perTokenMs()}); NaN with fewer than two tokens. */
  public double decodeTokensPerSecond() {
    return 1000.0 / perTokenMs();
  }
}
