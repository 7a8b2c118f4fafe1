package dev.svc.bench.measure;

import dev.svc.engines.codec.ServerTimings;

/**
 * What the client saw of one request (docs/metrics.md, "Timestamps"). Times are monotonic nanoseconds
 * on one clock; {@code sched} is {@link #UNSCHEDULED} in closed-loop modes. {@code chunks} are the
 * arrival times of the chunks that carried generated text, in order. A failed request has an
 * {@code error} and whatever times it reached. {@code server} holds the engine's own timings of
 * the request where it reports them (llama.cpp), otherwise null. {@code cachedPromptTokens} are the
 * tokens of its prompt the engine took from its prompt cache, {@link #UNKNOWN} when it did not say.
 * {@code connectStart} and {@code connected} bracket the opening of the request's own connection
 * (TCP connect and TLS handshake), before {@code send}; {@link #NO_CONNECTION} where there was none.
 */
public record RequestRecord(long sched, long send, long[] chunks, long end, int outputTokens, int promptTokens,
    TokenSource tokenSource, String text, String error, ServerTimings server, int cachedPromptTokens,
    long connectStart, long connected) {

  public static final long UNSCHEDULED = Long.MIN_VALUE;
  /** {@code cachedPromptTokens} of a request whose engine did not say how much of its prompt was cached. */
  public static final int UNKNOWN = -1;
  /**
   * {@code connectStart} and {@code connected} of a request that opened no connection of its own (a
   * pooled one), and {@code connected} of one whose connection never opened.
   */
  public static final long NO_CONNECTION = Long.MIN_VALUE;

  /** A request that opened no connection of its own. */
  public RequestRecord(long sched, long send, long[] chunks, long end, int outputTokens, int promptTokens,
      TokenSource tokenSource, String text, String error, ServerTimings server, int cachedPromptTokens) {
    this(sched, send, chunks, end, outputTokens, promptTokens, tokenSource, text, error, server, cachedPromptTokens,
        NO_CONNECTION, NO_CONNECTION);
  }

  /** A request the engine gave no timings and no cached prompt tokens for. */
  public RequestRecord(long sched, long send, long[] chunks, long end, int outputTokens, int promptTokens,
      TokenSource tokenSource, String text, String error) {
    this(sched, send, chunks, end, outputTokens, promptTokens, tokenSource, text, error, null);
  }

  /** A request the engine gave no cached prompt tokens for. */
  public RequestRecord(long sched, long send, long[] chunks, long end, int outputTokens, int promptTokens,
      TokenSource tokenSource, String text, String error, ServerTimings server) {
    this(sched, send, chunks, end, outputTokens, promptTokens, tokenSource, text, error, server, UNKNOWN);
  }

  /** Where a request's token counts came from. */
  public enum TokenSource {
    /** The server's {@code usage} object. */
    USAGE,
    /** Counted from the stream's content chunks, because the server gave no usage. */
    CHUNKS
  }

  public boolean ok() {
    return error == null;
  }

  public boolean scheduled() {
    return sched != UNSCHEDULED;
  }

  /** Whether the engine said how many of the prompt's tokens came from its prompt cache. */
  public boolean cacheReported() {
    return cachedPromptTokens != UNKNOWN;
  }

  /** t_first: the first chunk with generated text, or -1 when none came. */
  public long first() {
    return chunks.length == 0 ? -1 : chunks[0];
  }

  /** t_last: the last chunk with generated text, or -1 when none came. */
  public long last() {
    return chunks.length == 0 ? -1 : chunks[chunks.length - 1];
  }

  /** TTFT = t_first - t_send, in ms; NaN without generated text. */
  public double ttftMs() {
    return chunks.length == 0 ? Double.NaN : ms(first() - send);
  }

  /** E2E = t_end - t_send, in ms. */
  public double e2eMs() {
    return ms(end - send);
  }

  /** TPOT = (E2E - TTFT) / (N_out - 1), in ms; NaN when N_out < 2. */
  public double tpotMs() {
    return outputTokens < 2 || chunks.length == 0 ? Double.NaN : (e2eMs() - ttftMs()) / (outputTokens - 1);
  }

  /** NTPOT = E2E / N_out, in ms; NaN without output tokens. */
  public double ntpotMs() {
    return outputTokens < 1 ? Double.NaN : e2eMs() / outputTokens;
  }

  /** Every gap between consecutive content chunks, in ms. */
  public double[] gapsMs() {
    double[] gaps = new double[Math.max(0, chunks.length - 1)];
    for (int i = 1; i < chunks.length; i++) {
      gaps[i - 1] = ms(chunks[i] - chunks[i - 1]);
    }
    return gaps;
  }

  /** Whether the request opened a connection of its own and it was ready (TCP and TLS handshakes done). */
  public boolean connectionTimed() {
    return connectStart != NO_CONNECTION && connected != NO_CONNECTION;
  }

  /** t_connected - t_connect_start in ms: opening its connection; NaN when it opened none. */
  public double connectMs() {
    return connectionTimed() ? ms(connected - connectStart) : Double.NaN;
  }

  /** t_send - t_sched in ms (open loop only; NaN otherwise). */
  public double queueingDelayMs() {
    return scheduled() ? ms(send - sched) : Double.NaN;
  }

  /** t_end - t_sched in ms: latency from schedule (open loop only; NaN otherwise). */
  public double fromScheduleMs() {
    return scheduled() ? ms(end - sched) : Double.NaN;
  }

  static double ms(long nanos) {
    return nanos / 1e6;
  }
}
