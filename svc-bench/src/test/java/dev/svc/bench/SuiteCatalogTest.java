package dev.svc.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.bench.load.LoadModel;
import dev.svc.bench.suite.BenchmarkSettings;
import dev.svc.bench.suite.Suite;
import dev.svc.bench.suite.SuiteCatalog;
import dev.svc.bench.run.SuiteRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped suites hold the benchmarks benchmarks.md names; user suites replace them; bad files are refused. */
class SuiteCatalogTest {

  @TempDir
  Path dir;

  @Test
  void shippedSuitesHoldTheNamedBenchmarks() throws Exception {
    SuiteCatalog catalog = SuiteCatalog.load(dir.resolve("absent"));
    assertThat(catalog.suite("quick").orElseThrow().benchmarks()).extracting(BenchmarkSettings::name)
        .containsExactly("throughput");
    assertThat(catalog.suite("performance").orElseThrow().benchmarks()).extracting(BenchmarkSettings::name)
        .containsExactly("throughput", "latency", "memory", "warmup");
    assertThat(catalog.suite("standard").orElseThrow().benchmarks()).extracting(BenchmarkSettings::name)
        .containsExactly("mmlu", "gsm8k", "truthfulqa", "hellaswag", "throughput", "latency", "memory", "warmup");
    BenchmarkSettings throughput = catalog.suite("quick").orElseThrow().benchmark("throughput").orElseThrow();
    assertThat(throughput.load()).isEqualTo(LoadModel.concurrency(4));
    assertThat(throughput.warmupRequests()).isEqualTo(BenchmarkSettings.DEFAULT_WARMUP_REQUESTS);
    assertThat(throughput.runs()).as("the quick suite's first look runs once").isEqualTo(1);
    for (String suite : List.of("performance", "standard")) {
      assertThat(catalog.suite(suite).orElseThrow().benchmarks()).as(suite)
          .filteredOn(b -> List.of("throughput", "latency", "memory").contains(b.name()))
          .extracting(BenchmarkSettings::runs).containsExactly(3, 3, 3);
    }
  }

  @Test
  void aUserSuiteReplacesTheShippedOneAndAliasesAreCanonical() throws Exception {
    Files.writeString(dir.resolve("quick.yaml"), "benchmarks:\n  memory_usage:\n    iterations: 3\n    load: poisson:5\n");
    Files.writeString(dir.resolve("mine.yaml"), "description: mine\nbenchmarks:\n  warmup_analysis:\n");
    SuiteCatalog catalog = SuiteCatalog.load(dir);
    Suite quick = catalog.suite("quick").orElseThrow();
    assertThat(quick.benchmarks()).extracting(BenchmarkSettings::name).containsExactly("memory");
    assertThat(quick.benchmarks().get(0).iterations()).isEqualTo(3);
    assertThat(quick.benchmarks().get(0).load()).isEqualTo(LoadModel.poisson(5));
    assertThat(catalog.suite("mine").orElseThrow().benchmarks().get(0).name()).isEqualTo("warmup");
    assertThat(catalog.names()).contains("mine", "quick", "performance", "standard");
  }

  @Test
  void aSuiteMaySweepAPerformanceBenchmarkAndSweepingKeepsTheSuitesConcurrency() throws Exception {
    Files.writeString(dir.resolve("swept.yaml"), "benchmarks:\n  latency:\n    load: sweep\n");
    BenchmarkSettings latency = SuiteCatalog.load(dir).suite("swept").orElseThrow().benchmarks().get(0);
    assertThat(latency.load()).isEqualTo(LoadModel.sweep(1));
    assertThat(latency.load().wireName()).isEqualTo("sweep");
    BenchmarkSettings throughput = new BenchmarkSettings("throughput", 5, 8, LoadModel.concurrency(8), 0, 0);
    assertThat(throughput.withLoad(LoadModel.parse("sweep")).load()).isEqualTo(LoadModel.sweep(8));
    assertThat(throughput.withLoad(LoadModel.poisson(3)).load()).isEqualTo(LoadModel.poisson(3));
    assertThat(latency.withLoad(LoadModel.parse("sweep")).load()).isEqualTo(LoadModel.sweep(1));
  }

  @Test
  void aPerformanceBenchmarkMayShareAPrefixAndTheRunsOptionReplacesIt() throws Exception {
    Files.writeString(dir.resolve("chat.yaml"), "benchmarks:\n  gsm8k:\n  throughput:\n    prefix_tokens: 500\n"
        + "  latency:\n");
    Suite chat = SuiteCatalog.load(dir).suite("chat").orElseThrow();
    assertThat(chat.benchmarks()).extracting(BenchmarkSettings::prefixTokens).containsExactly(0, 500, 0);

    assertThat(SuiteRun.select(chat, null, null, 64)).extracting(BenchmarkSettings::prefixTokens).containsExactly(0, 64, 64);
    assertThat(SuiteRun.select(chat, null, null, 0)).extracting(BenchmarkSettings::prefixTokens).containsExactly(0, 0, 0);
    assertThat(SuiteRun.select(chat, "throughput", LoadModel.concurrency(2), null).get(0))
        .isEqualTo(new BenchmarkSettings("throughput", BenchmarkSettings.DEFAULT_ITERATIONS,
            BenchmarkSettings.DEFAULT_MAX_TOKENS, LoadModel.concurrency(2), BenchmarkSettings.DEFAULT_WARMUP_REQUESTS, 0, 500,
            1));
  }

  @Test
  void badFilesAreRefusedNamingTheProblem() throws Exception {
    assertRefused("benchmarks:\n  mmlu:\n    prefix_tokens: 10\n", "prefix_tokens shapes the prompts of performance"
        + " benchmarks; mmlu asks its dataset's questions as they are");
    assertRefused("benchmarks:\n  latency:\n    prefix_tokens: -1\n", "prefix_tokens of latency must be from 0 to 1000000");
    assertRefused("benchmarks:\n  mmlu:\n    load: sweep\n", "mmlu: a sweep measures performance");
    assertRefused("benchmarks:\n  speed:\n", "unknown benchmark 'speed'");
    assertRefused("benchmarks:\n  latency:\n    iteration: 3\n", "unknown setting 'iteration' of latency");
    assertRefused("benchmarks:\n  latency:\n    iterations: many\n", "iterations of latency must be a whole number");
    assertRefused("benchmarks:\n  latency:\n    load: burst:2\n", "Unknown load model");
    assertRefused("benchmarks:\n  latency:\n    iterations: 0\n", "at least 1");
    assertRefused("benchmark:\n  latency:\n", "unknown key 'benchmark'");
    assertRefused("benchmarks: [\n", "not well-formed YAML");
    assertRefused("benchmarks:\n  warmup:\n    repeat: 3\n", "warmup runs once: it measures a cold engine");
    assertRefused("benchmarks:\n  gsm8k:\n    repeat: 2\n", "gsm8k runs once: it asks the same questions");
    assertRefused("benchmarks:\n  latency:\n    repeat: 0\n", "repeat of latency must be from 1 to 100");
  }

  private void assertRefused(String yaml, String message) throws Exception {
    Path file = dir.resolve("bad.yaml");
    Files.writeString(file, yaml);
    assertThatThrownBy(() -> SuiteCatalog.load(dir)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(file.toString()).hasMessageContaining(message);
  }
}
