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
 * and hashed, so metrics.json records which inputs were used.
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

  public static Prompts seeded(long seed, int count) {
    SplittableRandom random = new SplittableRandom(seed);
    List<String> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(FORMS[random.nextInt(FORMS.length)] + " " + TOPICS[random.nextInt(TOPICS.length)] + ".");
    }
    return new Prompts(out);
  }

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
