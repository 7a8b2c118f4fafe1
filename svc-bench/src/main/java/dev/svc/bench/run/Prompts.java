package dev.svc.bench.run;

import dev.svc.bench.suite.BenchmarkSettings;
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
 * With a shared prefix, every prompt opens with the same words instead, as chat traffic with one
 * system prompt does, and only the rest is new.
 */
public final class Prompts {

  private static final String[] TOPICS = {"a lighthouse keeper", "the first rain of autumn", "a city under the sea",
      "an old clockmaker", "a robot learning to paint", "a mountain village", "a voyage to Jupiter", "a lost letter",
      "the last bookshop", "a garden on a rooftop", "a quiet train station", "a festival of lanterns"};
  private static final String[] FORMS = {"Write a short story about", "Describe in detail", "Explain to a child",
      "Write a poem about", "Write a news report about", "Write a diary entry about"};

  /**
   * Words that are one token each in the vocabularies of common models (Llama, Mistral, Qwen,
   * GPT-style BPE: a frequent English word with its leading space), so that a prefix of N of them is
   * about N tokens whatever the model; a character-level vocabulary makes it longer.
   */
  private static final String[] PREFIX_WORDS = {"the", "of", "and", "to", "in", "is", "that", "for", "it", "as",
      "was", "with", "be", "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have",
      "an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has", "there", "been", "if",
      "more", "when", "will", "would", "who", "so", "no", "out", "up", "into", "than", "them", "only", "time", "new",
      "some", "could", "these", "two", "may", "first", "then", "do", "any", "like", "my", "now", "over", "such",
      "our", "man", "me", "even", "most", "made", "after", "also", "did", "many", "before", "must", "through",
      "back", "years", "where", "much", "your", "way", "well", "down", "should", "because", "each", "just", "those",
      "people", "how", "too", "little", "state", "good", "very", "make", "world", "still", "own", "see", "men",
      "work", "long", "here", "get", "both", "between", "life", "being", "under", "never", "day", "same",
      "another", "know", "while", "last", "might", "great", "old", "year", "off", "come", "since", "against", "go"};
  /** Keeps the prefix's draws apart from the benchmarks' own, which start from the same seed. */
  private static final long PREFIX_STREAM = 0x5DEECE66DL;

  private final String prefix;
  private final List<String> prompts;

  private Prompts(String prefix, List<String> prompts) {
    this.prefix = prefix;
    this.prompts = List.copyOf(prompts);
  }

  /**
   * The prompts of one benchmark of a run: drawn from the run's seed and the benchmark's name, so
   * that the benchmarks of a run do not send each other's prompts (the engine would have them
   * cached from the benchmark before).
   */
  public static Prompts forBenchmark(long seed, String benchmark, int count) {
    return forBenchmark(seed, benchmark, count, 0);
  }

  /**
   * The same, each opened by the run's shared prefix of {@code prefixTokens} words (none for 0):
   * the same for every benchmark of the run, drawn from the run's seed.
   */
  public static Prompts forBenchmark(long seed, String benchmark, int count, int prefixTokens) {
    Prompts own = seeded(seed ^ (benchmark.hashCode() * 0x9E3779B97F4A7C15L), count);
    return new Prompts(prefix(seed, prefixTokens), own.prompts);
  }

  /**
   * The shared prefix of a run's prompts: {@code words} words drawn from the seed, then a line
   * break before each prompt's own text; empty for 0 words.
   */
  static String prefix(long seed, int words) {
    if (words < 0 || words > BenchmarkSettings.MAX_PREFIX_TOKENS) {
      throw new IllegalArgumentException("A prefix has 0 to " + BenchmarkSettings.MAX_PREFIX_TOKENS + " tokens, not "
          + words);
    }
    if (words == 0) {
      return "";
    }
    SplittableRandom random = new SplittableRandom(seed ^ PREFIX_STREAM);
    StringBuilder out = new StringBuilder(words * 6);
    for (int i = 0; i < words; i++) {
      out.append(i == 0 ? "" : " ").append(PREFIX_WORDS[random.nextInt(PREFIX_WORDS.length)]);
    }
    return out.append('\n').toString();
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
    return new Prompts("", out);
  }

  /** Prompt i; the list repeats after {@link #size()} prompts, and negative i count back from its end. */
  public String get(int i) {
    String own = prompts.get(Math.floorMod(i, prompts.size()));
    return prefix.isEmpty() ? own : prefix + own;
  }

  /** What every prompt opens with: the shared prefix, empty when they share none. */
  public String prefix() {
    return prefix;
  }

  public int size() {
    return prompts.size();
  }

  /** SHA-256 of the prompts in order, first 16 hex digits. */
  public String hash() {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] shared = prefix.getBytes(StandardCharsets.UTF_8);
      for (String p : prompts) {
        digest.update(shared);
        digest.update(p.getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0);
      }
      return HexFormat.of().formatHex(digest.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from the JDK", e);
    }
  }
}
