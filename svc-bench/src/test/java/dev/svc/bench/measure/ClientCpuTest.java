package dev.svc.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonObject;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientCpuTest {

  @Test
  void aClientThatUsedNearlyAllOfItsCoresItselfSaturated() {
    ClientCpu alone = new ClientCpu(10, 9.2, 1, 0.0, 0.5, null);

    assertThat(alone.utilisation()).isCloseTo(0.92, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(alone.saturationReason()).isEqualTo("the client, not the engine, was the bottleneck: it used 92 % of"
        + " its 1 core(s) (9.2 s of CPU in 10.0 s), at or above 90 %");
  }

  @Test
  void aWindowShorterThanASecondGetsNoVerdict() {
    // 20 requests against a fast engine: 0.2 s of CPU in 0.1 s on 2 cores, much of it the JIT's
    assertThat(new ClientCpu(0.1, 0.19, 2, 0.05, 0.01, null).saturationReason()).isNull();
    assertThat(new ClientCpu(0.9, 0.9, 1, 0.0, 5.0, null).saturationReason()).isNull();
    assertThat(new ClientCpu(1.0, 0.95, 1, 0.0, 0.1, null).saturationReason()).as("a second is enough").isNotNull();
  }

  @Test
  void aClientKeptOffItsBusyCoresMostOfTheTimeItWasReadySaturated() {
    ClientCpu starved = new ClientCpu(185, 11.2, 1, 0.0, 136.0, null);

    assertThat(starved.utilisation()).isLessThan(0.1);
    assertThat(starved.saturationReason()).isEqualTo("the client, not the engine, was the bottleneck: its 1 core(s)"
        + " were 0.0 % idle and its threads waited for a core 92 % of the time they were ready to run (136.0 s waiting,"
        + " 11.2 s running)");
  }

  @Test
  void anEngineKeepingTheClientsCoresBusyDoesNotMarkAClientThatGetsACoreWhenItNeedsOne() {
    // a local CPU engine on both cores: none idle, the client light and mostly running when ready
    assertThat(new ClientCpu(60, 6, 2, 0.0, 4.0, null).saturationReason()).isNull();
    // a busy machine: the client waited for two thirds of its ready time, below the limit
    assertThat(new ClientCpu(24, 10, 2, 0.0, 19.2, null).saturationReason()).isNull();
    // starved, but its cores had idle time: not the client's cores that were short
    assertThat(new ClientCpu(20, 1, 2, 0.3, 9.0, null).saturationReason()).isNull();
    assertThat(new ClientCpu(20, 17.9, 1, 0.0, 0.0, null).saturationReason()).isNull();
  }

  @Test
  void coresTheEngineUnderTestKeptBusyDoNotMarkAClientThatWaitedForThem() {
    // a local llama.cpp on the client's 2 cores: 2 % idle, the client waited 84 % of its ready time,
    // and the engine used 34 s of the 40 s the cores had in 20 s
    ClientCpu local = new ClientCpu(20, 2.0, 2, 0.02, 10.5, 34.0, 0, null);

    assertThat(local.starved()).isGreaterThan(ClientCpu.STARVED_LIMIT);
    assertThat(local.coresIdleWithoutEngine()).isCloseTo(0.87, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(local.saturationReason()).isNull();
    JsonObject json = local.toJson();
    assertThat(json.getDouble(MetricKeys.CLIENT_ENGINE_CPU_S)).isEqualTo(34.0);
    assertThat(json.getDouble(MetricKeys.CLIENT_CORES_IDLE_WITHOUT_ENGINE)).isEqualTo(0.87);
  }

  @Test
  void coresOtherWorkKeptBusyMarkAStarvedClientThoughTheEngineIsKnown() {
    // the engine took 1 s of the 40 s; something else took what the client did not
    ClientCpu crowded = new ClientCpu(20, 2.0, 2, 0.01, 10.5, 1.0, 0, null);

    assertThat(crowded.coresIdleWithoutEngine()).isCloseTo(0.035, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(crowded.saturationReason()).isEqualTo("the client, not the engine, was the bottleneck: its 2 core(s)"
        + " were 1.0 % idle, 3.5 % counting the engine's 1.0 s of CPU as idle, and its threads waited for a core 84 %"
        + " of the time they were ready to run (10.5 s waiting, 2.0 s running)");
  }

  @Test
  void onlyTheEnginesCpuItsOtherCoresCouldNotHaveHeldCountsAsIdleOnThePinnedClientsCore() {
    // the client pinned to 1 of the engine's 4 CPUs, beside busy processes: 8 s of engine CPU in 10 s
    // fit on its 3 other CPUs, so none of it excuses the client's busy core
    ClientCpu pinned = new ClientCpu(10, 1.0, 1, 0.0, 9.0, 8.0, 3, null);

    assertThat(pinned.coresIdleWithoutEngine()).isEqualTo(0.0);
    assertThat(pinned.saturationReason()).startsWith("the client, not the engine, was the bottleneck: its 1 core(s)"
        + " were 0.0 % idle, 0.0 % counting the engine's 8.0 s of CPU as idle,");
    // 35 s in 10 s: at least 5 s of it ran on the client's core
    ClientCpu beside = new ClientCpu(10, 1.0, 1, 0.0, 9.0, 35.0, 3, null);
    assertThat(beside.coresIdleWithoutEngine()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(beside.saturationReason()).isNull();
    BitSet engine = new BitSet();
    engine.set(0, 4);
    BitSet client = new BitSet();
    client.set(3);
    client.set(7);
    assertThat(ClientCpu.notShared(engine, client)).isEqualTo(3);
  }

  @Test
  void aClientThatUsedNinetyPercentOfItsCoresIsMarkedWhateverTheEngineUsed() {
    ClientCpu busy = new ClientCpu(10, 18.4, 2, 0.0, 0.4, 1.5, 0, null);

    assertThat(busy.saturationReason()).isEqualTo("the client, not the engine, was the bottleneck: it used 92 % of"
        + " its 2 core(s) (18.4 s of CPU in 10.0 s), at or above 90 %");
  }

  @Test
  void theEnginesCpuIsItsUseBetweenTheSamplesAndUnknownWithoutOne() {
    long[] ticks = {0};
    ClientCpu cpu = ClientCpu.between(
        new ClientCpu.Sample(0, 0, 1, ticks, new long[] {0}, Map.of(), null, null, 5_000_000_000L, 0, null),
        new ClientCpu.Sample(2_000_000_000L, 0, 1, ticks, new long[] {200}, Map.of(), null, null, 6_500_000_000L, 0,
            null));

    assertThat(cpu.engineCpuS()).isEqualTo(1.5);
    assertThat(cpu.coresIdleWithoutEngine()).isEqualTo(0.75);
    ClientCpu lost = ClientCpu.between(
        new ClientCpu.Sample(0, 0, 1, ticks, new long[] {0}, Map.of(), null, null, 5_000_000_000L, 0, null),
        new ClientCpu.Sample(2_000_000_000L, 0, 1, ticks, new long[] {200}, Map.of(), null, null, null, 0,
            "the engine's CPU could not be read: gone"));
    assertThat(lost.engineCpuS()).isNull();
    assertThat(lost.toJson().getValue(MetricKeys.CLIENT_ENGINE_CPU_S)).isNull();
    assertThat(lost.reason()).isEqualTo("the engine's CPU could not be read: gone");
    assertThat(new ClientCpu(10, 3, 2, 0.0, 1.0, null).toJson().containsKey(MetricKeys.CLIENT_CPU_REASON))
        .as("an engine svc did not start needs no reason").isFalse();
  }

  @Test
  void withoutIdleTimesOnlyTheClientsOwnUseCountsAndTheFigureIsNullWithItsReason() {
    ClientCpu unknown = new ClientCpu(10, 3, 2, null, null, "no per-CPU times on this system");

    assertThat(unknown.saturationReason()).isNull();
    assertThat(new ClientCpu(10, 19, 2, null, null, "no per-CPU times").saturationReason()).contains("it used 95 %");
    JsonObject json = unknown.toJson();
    assertThat(json.containsKey(MetricKeys.CLIENT_CORES_IDLE)).isTrue();
    assertThat(json.getValue(MetricKeys.CLIENT_CORES_IDLE)).isNull();
    assertThat(json.getString(MetricKeys.CLIENT_CPU_REASON)).isEqualTo("no per-CPU times on this system");
    assertThat(json.getDouble(MetricKeys.CLIENT_UTILISATION)).isEqualTo(0.15);
  }

  @Test
  void theIdleShareIsThatOfTheAllowedCpusOnlyAndWaitsAreCountedPerThread() {
    BitSet allowed = ClientCpu.allowedCpus("Name:\tjava\nCpus_allowed:\t5\nCpus_allowed_list:\t0,2-3\n");
    assertThat(allowed.stream().toArray()).containsExactly(0, 2, 3);
    List<String> before = List.of("cpu  1 1 1 1 1 1 1 1 0 0", "cpu0 100 0 0 100 0 0 0 0 0 0", "cpu1 0 0 0 0 0 0 0 0 0 0",
        "cpu2 100 0 0 100 0 0 0 0 0 0", "cpu3 100 0 0 100 0 0 0 0 0 0", "intr 5");
    List<String> after = List.of("cpu  1 1 1 1 1 1 1 1 0 0", "cpu0 200 0 0 100 0 0 0 0 0 0", "cpu1 0 0 0 900 0 0 0 0 0 0",
        "cpu2 150 0 0 150 0 0 0 0 0 0", "cpu3 200 0 0 100 0 0 0 0 0 0", "intr 5");
    List<long[]> start = ClientCpu.cpuTicks(before, allowed);
    List<long[]> end = ClientCpu.cpuTicks(after, allowed);

    ClientCpu cpu = ClientCpu.between(
        new ClientCpu.Sample(0, 0, 3, start.get(0), start.get(1), Map.of("1", 100L, "2", 500L), null, null, null, 0,
            null),
        new ClientCpu.Sample(2_000_000_000L, 1_500_000_000L, 3, end.get(0), end.get(1),
            Map.of("1", 300L, "3", 1_000_000_000L), null, null, null, 0, null));

    // cpu1 is not allowed: its idle ticks do not count; 50 of 300 ticks idle
    assertThat(cpu.coresIdle()).isCloseTo(50 / 300.0, org.assertj.core.data.Offset.offset(1e-9));
    // thread 2 ended (its wait is gone), thread 3 began in the window
    assertThat(cpu.runnableWaitS()).isCloseTo(1.0000002, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(cpu.utilisation()).isEqualTo(0.25);
  }
}
