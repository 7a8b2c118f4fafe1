package dev.svc.bench.run;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The prompts of a performance benchmark: seeded, so a run can be repeated with the same inputs,
 * and hashed, so metrics.json records which inputs were used. Each opens with a tag of 8 hex
 * digits of its own, so that no two requests share more than a token or two of prefix: engines
 * that keep earlier prompts in their KV cache (llama.cpp's prompt cache, vLLM's prefix caching)
 * would otherwise skip most of the prompt on a repeat and report a TTFT no new user would see.
 */
public final class Prompts {

  private static final String[] TOPICS = {"a lighthouse keeper", "the first rain of autumn", "a city under the sea",
      "an old clockmaker", "a robot learning to paint", "a mountain village", "a voyage to Jupiter", "a lost letter",
      "the last bookshop", "a garden on a rooftop", "a quiet train station", "a festival of lanterns"};
  private static final String[] FORMS = {"Write a short story about", "Describe in detail", "Explain to a child",
      "Write a poem about", "Write a news report about", "Write a diary entry about"};

  private final List<String> prompts;

  private Prompts(List<String> prompts) {
    this.prompts = List.copyOf(prompts);
  }

  /**
   * The prompts of one benchmark of a run: drawn from the run's seed and the benchmark's name, so
   * that the benchmarks of a run do not send each other's prompts (the engine would have them
   * cached from the benchmark before).
   */
  public static Prompts forBenchmark(long seed, String benchmark, int count) {
    return seeded(seed ^ (benchmark.hashCode() * 0x9E3779B97F4A7C15L), count);
  }

  /** {@code count} prompts (at least one) drawn from the seed, each with a tag no other has. */
  public static Prompts seeded(long seed, int count) {
    SplittableRandom random = new SplittableRandom(seed);
    List<String> out = new ArrayList<>(Math.max(1, count));
    java.util.Set<Integer> tags = new java.util.HashSet<>();
    while (out.size() < Math.max(1, count)) {
      int tag = random.nextInt();
      if (tags.add(tag)) {
        out.add(String.format("%08x: ", tag) + FORMS[random.nextInt(FORMS.length)] + " "
            + TOPICS[random.nextInt(TOPICS.length)] + ".");
      }
    }
    return new Prompts(out);
  }

  /** Prompt i; the list repeats after {@link #size()} prompts, and negative i count back from its end. */
  public String get(int i) {
    return prompts.get(Math.floorMod(i, prompts.size()));
  }

  public int size() {
    return prompts.size();
  }

  /** SHA-256 of the prompts in order, first 16 hex digits. */
  public String hash() {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (String p : prompts) {
        digest.update(p.getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0);
      }
      return HexFormat.of().formatHex(digest.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from the JDK", e);
    }
  }
}
