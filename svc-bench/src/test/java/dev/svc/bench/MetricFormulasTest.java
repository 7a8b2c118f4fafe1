package dev.svc.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.svc.bench.load.ArrivalSchedule;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.bench.measure.RequestRecord.TokenSource;
import dev.svc.bench.measure.RunMetrics;
import dev.svc.bench.measure.Slo;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.codec.ServerTimings;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The formulas of docs/metrics.md, "Per-request metrics" on hand-made timelines, and the parsing of load models and SLOs. */
class MetricFormulasTest {

  private static final long MS = 1_000_000;

  /** Sent at {@code send} ms; chunks at the given ms; ended at {@code end} ms. */
  private static RequestRecord request(long sched, long send, long[] chunkMs, long end, int tokens, TokenSource source) {
    long[] chunks = new long[chunkMs.length];
    for (int i = 0; i < chunks.length; i++) {
      chunks[i] = chunkMs[i] * MS;
    }
    return new RequestRecord(sched == RequestRecord.UNSCHEDULED ? sched : sched * MS, send * MS, chunks, end * MS, tokens,
        10, source, "", null);
  }

  @Test
  void perRequestFormulas() {
    RequestRecord r = request(900, 1000, new long[] {1040, 1050, 1070, 1080}, 1085, 4, TokenSource.USAGE);
    assertThat(r.ttftMs()).isEqualTo(40.0);
    assertThat(r.e2eMs()).isEqualTo(85.0);
    assertThat(r.tpotMs()).isEqualTo((85.0 - 40.0) / 3);
    assertThat(r.ntpotMs()).isEqualTo(85.0 / 4);
    assertThat(r.gapsMs()).containsExactly(10.0, 20.0, 10.0);
    assertThat(r.queueingDelayMs()).isEqualTo(100.0);
    assertThat(r.fromScheduleMs()).isEqualTo(185.0);
  }

  @Test
  void theConnectionTimeIsFromItsStartToItsReadinessAndStaysOutOfTtft() {
    RequestRecord connected = new RequestRecord(RequestRecord.UNSCHEDULED, 1000 * MS, new long[] {1040 * MS}, 1050 * MS,
        1, 10, TokenSource.USAGE, "", null, null, RequestRecord.UNKNOWN, 990 * MS, 998 * MS);
    RequestRecord slow = new RequestRecord(RequestRecord.UNSCHEDULED, 2000 * MS, new long[] {2040 * MS}, 2050 * MS,
        1, 10, TokenSource.USAGE, "", null, null, RequestRecord.UNKNOWN, 1970 * MS, 1999 * MS);
    RequestRecord pooled = request(RequestRecord.UNSCHEDULED, 3000, new long[] {3040}, 3050, 1, TokenSource.USAGE);

    assertThat(connected.connectMs()).isEqualTo(8.0);
    assertThat(connected.ttftMs()).isEqualTo(40.0);
    assertThat(pooled.connectMs()).isNaN();
    JsonObject summary = RunMetrics.of(List.of(connected, slow, pooled), Slo.NONE).getJsonObject(MetricKeys.CONNECT_MS);
    assertThat(summary.getDouble(MetricKeys.MIN)).isEqualTo(8.0);
    assertThat(summary.getDouble(MetricKeys.MAX)).isEqualTo(29.0);
    assertThat(RunMetrics.of(List.of(pooled), Slo.NONE).getValue(MetricKeys.CONNECT_MS)).isNull();
  }

  @Test
  void aSingleTokenRequestHasNoTpotAndIsCountedAsExcluded() {
    RequestRecord one = request(RequestRecord.UNSCHEDULED, 0, new long[] {30}, 31, 1, TokenSource.USAGE);
    RequestRecord two = request(RequestRecord.UNSCHEDULED, 100, new long[] {120, 130}, 130, 2, TokenSource.USAGE);
    assertThat(one.tpotMs()).isNaN();
    JsonObject metrics = RunMetrics.of(List.of(one, two), Slo.NONE);
    assertThat(metrics.getLong(MetricKeys.TPOT_EXCLUDED)).isEqualTo(1);
    assertThat(metrics.getJsonObject(MetricKeys.TPOT_MS).getDouble(MetricKeys.P50)).isEqualTo(10.0);
    assertThat(metrics.containsKey(MetricKeys.QUEUEING_DELAY_MS)).as("closed loop has no schedule").isFalse();
  }

  @Test
  void theEnginesDecodeRateCountsDecodeStepsAsTheClientsTpotDoes() {
    // 4 tokens, the first at 40 ms and the last at 70 ms: 3 decode steps of 10 ms on both sides.
    // llama.cpp's timings say the same: predicted_ms 30 from the first token to the last, predicted_n 4.
    RequestRecord r = new RequestRecord(RequestRecord.UNSCHEDULED, 0, new long[] {40 * MS, 50 * MS, 60 * MS, 70 * MS},
        70 * MS, 4, 10, TokenSource.USAGE, "", null, new ServerTimings(38.0, 30.0, 4));
    JsonObject metrics = RunMetrics.of(List.of(r), Slo.NONE);
    JsonObject server = metrics.getJsonObject(MetricKeys.SERVER_TIMINGS);
    assertThat(metrics.getJsonObject(MetricKeys.TPOT_MS).getDouble(MetricKeys.P50)).isEqualTo(10.0);
    assertThat(server.getJsonObject("predicted_per_token_ms").getDouble(MetricKeys.P50)).isEqualTo(10.0);
    assertThat(server.getJsonObject(MetricKeys.DECODE_RATE_TPS).getDouble(MetricKeys.P50))
        .isEqualTo(metrics.getJsonObject(MetricKeys.DECODE_RATE_TPS).getDouble(MetricKeys.P50)).isEqualTo(100.0);
    assertThat(server.getJsonObject("prompt_ms").getDouble(MetricKeys.P50)).isEqualTo(38.0);
  }

  @Test
  void throughputsUseTheWindowFromFirstSendToLastEnd() {
    RequestRecord a = request(RequestRecord.UNSCHEDULED, 0, new long[] {100, 200}, 500, 10, TokenSource.USAGE);
    RequestRecord b = request(RequestRecord.UNSCHEDULED, 1000, new long[] {1100}, 2000, 30, TokenSource.USAGE);
    JsonObject metrics = RunMetrics.of(List.of(a, b), Slo.NONE);
    assertThat(metrics.getDouble(MetricKeys.WINDOW_S)).isEqualTo(2.0);
    assertThat(metrics.getDouble(MetricKeys.OUTPUT_TOKEN_THROUGHPUT)).isEqualTo(20.0);
    assertThat(metrics.getDouble(MetricKeys.AVG_TPS)).isEqualTo(20.0);
    assertThat(metrics.getDouble(MetricKeys.REQUEST_THROUGHPUT)).isEqualTo(1.0);
    assertThat(metrics.getDouble(MetricKeys.TOTAL_TOKEN_THROUGHPUT)).isEqualTo(30.0);
    assertThat(metrics.getJsonObject(MetricKeys.ICG_MAX_MS).getDouble(MetricKeys.MAX)).isEqualTo(100.0);
  }

  @Test
  void errorsCountAgainstSloAttainmentButNotLatency() {
    RequestRecord fast = request(RequestRecord.UNSCHEDULED, 0, new long[] {10, 20, 30}, 30, 3, TokenSource.USAGE);
    RequestRecord slow = request(RequestRecord.UNSCHEDULED, 0, new long[] {900, 910, 920}, 920, 3, TokenSource.USAGE);
    RequestRecord failed = new RequestRecord(RequestRecord.UNSCHEDULED, 0, new long[0], 1000 * MS, 0, 0,
        TokenSource.CHUNKS, "", "HTTP 500: boom");
    JsonObject metrics = RunMetrics.of(List.of(fast, slow, failed), Slo.parse("ttft_ms=500,tpot_ms=30"));
    assertThat(metrics.getDouble(MetricKeys.SLO_ATTAINMENT)).isCloseTo(1 / 3.0, within(0.001));
    assertThat(metrics.getDouble(MetricKeys.GOODPUT)).isEqualTo(1.0);
    assertThat(metrics.getLong(MetricKeys.ERROR_COUNT)).isEqualTo(1);
    assertThat(metrics.getJsonObject(MetricKeys.TTFT_MS).getDouble(MetricKeys.MAX)).isEqualTo(900.0);
    assertThat(metrics.getString(MetricKeys.TOKEN_COUNT_SOURCE)).isEqualTo("usage");
  }

  @Test
  void tokenSourcesAreNeverMixedSilently() {
    RequestRecord usage = request(RequestRecord.UNSCHEDULED, 0, new long[] {10}, 10, 1, TokenSource.USAGE);
    RequestRecord chunks = request(RequestRecord.UNSCHEDULED, 0, new long[] {10}, 10, 1, TokenSource.CHUNKS);
    assertThat(RunMetrics.of(List.of(chunks), Slo.NONE).getString(MetricKeys.TOKEN_COUNT_SOURCE)).isEqualTo("chunks");
    assertThat(RunMetrics.of(List.of(usage, chunks), Slo.NONE).getString(MetricKeys.TOKEN_COUNT_SOURCE)).isEqualTo("mixed");
  }

  @Test
  void noRequestsGiveNullDistributionsNotZeros() {
    JsonObject metrics = RunMetrics.of(List.of(), Slo.NONE);
    assertThat(metrics.getValue(MetricKeys.TTFT_MS)).isNull();
    assertThat(metrics.containsKey(MetricKeys.TTFT_MS)).isTrue();
  }

  @Test
  void loadModelsParseAndRefuseNonsense() {
    assertThat(LoadModel.parse("sequential")).isEqualTo(LoadModel.SEQUENTIAL);
    assertThat(LoadModel.parse("concurrency:16").concurrency()).isEqualTo(16);
    assertThat(LoadModel.parse("poisson:50").wireName()).isEqualTo("poisson:50");
    assertThat(LoadModel.parse("rate:2.5").rate()).isEqualTo(2.5);
    assertThat(LoadModel.parse("SWEEP").mode()).isEqualTo(LoadModel.Mode.SWEEP);
    assertThatThrownBy(() -> LoadModel.parse("concurrency:0")).hasMessageContaining("at least 1");
    assertThatThrownBy(() -> LoadModel.parse("rate:-1")).hasMessageContaining("above 0");
    assertThatThrownBy(() -> LoadModel.parse("poisson:")).hasMessageContaining("after the colon");
    assertThatThrownBy(() -> LoadModel.parse("burst:3")).hasMessageContaining("Unknown load model");
    assertThatThrownBy(() -> LoadModel.parse("rate:fast")).hasMessageContaining("requests/s");
  }

  @Test
  void slosParseAndRefuseNonsense() {
    assertThat(Slo.parse("ttft_ms=500, tpot_ms=30").limits()).containsEntry("ttft_ms", 500.0).containsEntry("tpot_ms", 30.0);
    assertThat(Slo.parse("").isEmpty()).isTrue();
    assertThatThrownBy(() -> Slo.parse("itl_ms=5")).hasMessageContaining("Unknown SLO");
    assertThatThrownBy(() -> Slo.parse("ttft_ms=0")).hasMessageContaining("above 0");
    assertThatThrownBy(() -> Slo.parse("ttft_ms")).hasMessageContaining("needs a value");
  }

  @Test
  void poissonScheduleIsSeededRandomAndOffersExactlyTheRequestedRate() {
    ArrivalSchedule a = new ArrivalSchedule(LoadModel.poisson(50), 7, 1000);
    ArrivalSchedule b = new ArrivalSchedule(LoadModel.poisson(50), 7, 1000);
    ArrivalSchedule other = new ArrivalSchedule(LoadModel.poisson(50), 8, 1000);
    long last = 0;
    int differ = 0;
    double[] gaps = new double[999];
    for (int i = 0; i < 1000; i++) {
      long previous = last;
      last = a.next();
      assertThat(b.next()).isEqualTo(last);
      differ += other.next() != last ? 1 : 0;
      if (i > 0) {
        gaps[i - 1] = (last - previous) / 1e6;
      }
    }
    assertThat(a.hasNext()).isFalse();
    assertThat(differ).isGreaterThan(990);
    assertThat(999 / (last / 1e9)).isCloseTo(50.0, within(0.001));
    // exponential gaps: the standard deviation equals the mean (20 ms), unlike an even rate
    double mean = java.util.Arrays.stream(gaps).average().orElseThrow();
    double std = Math.sqrt(java.util.Arrays.stream(gaps).map(g -> (g - mean) * (g - mean)).average().orElseThrow());
    assertThat(std).isCloseTo(20.0, within(3.0));
    ArrivalSchedule even = new ArrivalSchedule(LoadModel.rate(4), 1, 3);
    assertThat(List.of(even.next(), even.next(), even.next())).containsExactly(0L, 250_000_000L, 500_000_000L);
  }
}
