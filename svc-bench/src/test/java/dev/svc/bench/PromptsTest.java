package dev.svc.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.run.Prompts;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PromptsTest {

  @Test
  void everyPromptOpensWithATagNoOtherHasSoThatNoneRepeatsAPrefix() {
    Prompts prompts = Prompts.seeded(42, 2000);
    assertThat(prompts.size()).isEqualTo(2000);
    Set<String> tags = new HashSet<>();
    IntStream.range(0, prompts.size()).forEach(i -> {
      assertThat(prompts.get(i)).matches("[0-9a-f]{8}: [A-Z].*\\.");
      tags.add(prompts.get(i).substring(0, 8));
    });
    assertThat(tags).hasSize(2000);
    // warmup requests count back from the end of the list
    assertThat(prompts.get(-1)).isEqualTo(prompts.get(1999));
  }

  @Test
  void theSameSeedGivesTheSamePromptsAndHash() {
    assertThat(Prompts.seeded(7, 50).hash()).isEqualTo(Prompts.seeded(7, 50).hash())
        .isNotEqualTo(Prompts.seeded(8, 50).hash());
    assertThat(Prompts.seeded(7, 50).get(3)).isEqualTo(Prompts.seeded(7, 50).get(3));
    assertThat(Prompts.seeded(7, 0).size()).isEqualTo(1);
  }

  @Test
  void theBenchmarksOfARunSendDifferentPrompts() {
    Prompts throughput = Prompts.forBenchmark(42, "throughput", 100);
    Prompts latency = Prompts.forBenchmark(42, "latency", 100);
    Set<String> tags = new HashSet<>();
    IntStream.range(0, 100).forEach(i -> {
      tags.add(throughput.get(i).substring(0, 8));
      tags.add(latency.get(i).substring(0, 8));
    });
    assertThat(tags).hasSize(200);
    assertThat(Prompts.forBenchmark(42, "latency", 100).hash()).isEqualTo(latency.hash());
  }

  @Test
  void aPrefixOpensEveryPromptOfTheRunWithTheSameWords() {
    Prompts throughput = Prompts.forBenchmark(42, "throughput", 50, 64);
    Prompts latency = Prompts.forBenchmark(42, "latency", 50, 64);
    String prefix = throughput.prefix();

    assertThat(prefix).endsWith("\n").doesNotStartWith(" ");
    assertThat(prefix.strip().split(" ")).hasSize(64).allMatch(word -> word.matches("[a-z]+"));
    assertThat(latency.prefix()).isEqualTo(prefix);
    Set<String> rests = new HashSet<>();
    IntStream.range(-5, 50).forEach(i -> {
      assertThat(throughput.get(i)).startsWith(prefix);
      String rest = throughput.get(i).substring(prefix.length());
      assertThat(rest).matches("[0-9a-f]{8}: [A-Z].*\\.");
      rests.add(rest);
    });
    assertThat(rests).as("the rest of every prompt is its own").hasSize(50);
    // the rest is what the prompts would be without a prefix
    assertThat(throughput.get(7)).isEqualTo(prefix + Prompts.forBenchmark(42, "throughput", 50).get(7));
  }

  @Test
  void thePrefixComesFromTheSeedAndEntersTheHash() {
    assertThat(Prompts.forBenchmark(42, "throughput", 10, 32).prefix())
        .isEqualTo(Prompts.forBenchmark(42, "throughput", 10, 32).prefix())
        .isNotEqualTo(Prompts.forBenchmark(43, "throughput", 10, 32).prefix());
    assertThat(Prompts.forBenchmark(42, "throughput", 10, 32).hash())
        .isEqualTo(Prompts.forBenchmark(42, "throughput", 10, 32).hash())
        .isNotEqualTo(Prompts.forBenchmark(42, "throughput", 10, 31).hash());
    // no prefix: the prompts, and their hash, are those of a run before prefixes existed
    assertThat(Prompts.forBenchmark(42, "throughput", 10, 0).prefix()).isEmpty();
    assertThat(Prompts.forBenchmark(42, "throughput", 10, 0).hash()).isEqualTo(Prompts.forBenchmark(42, "throughput", 10).hash())
        .isNotEqualTo(Prompts.forBenchmark(42, "throughput", 10, 1).hash());
  }
}
