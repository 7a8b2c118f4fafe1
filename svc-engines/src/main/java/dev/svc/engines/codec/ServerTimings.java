package dev.svc.engines.codec;

/**
 * The engine's own account of a request, where it gives one (llama.cpp's {@code timings} in the
 * last streamed chunk): prompt processing time, decode time and the tokens decoded. Lets a run
 * set the client's measurements beside the server's.
 *
 * @param promptMs time spent on the prompt
 * @param predictedMs time spent generating
 * @param predictedTokens tokens generated in that time
 */
public record ServerTimings(double promptMs, double predictedMs, int predictedTokens) {

  /** Tokens generated per second of generation time; NaN without tokens. */
  public double decodeTokensPerSecond() {
    return predictedTokens < 1 || predictedMs <= 0 ? Double.NaN : predictedTokens * 1000.0 / predictedMs;
  }
}
