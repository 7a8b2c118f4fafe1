package dev.svc.server.simulator;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a GPU's marketing name says about it: memory size, compute capability and a rough speed
 * relative to an H100, for making up believable figures on a test agent.
 */
final class GpuSpecs {

  /** VRAM assumed when the name carries no size (a 24 GB card is the common denominator). */
  static final int DEFAULT_VRAM_GB = 24;

  private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(?:GB|GiB|G)\\b",
      Pattern.CASE_INSENSITIVE);

  /** Name fragment → compute capability and speed; the first fragment found in the name wins. */
  private record Family(String fragment, int major, int minor, double speed) {
  }

  private static final List<Family> FAMILIES = List.of(
      new Family("GB200", 10, 0, 2.2),
      new Family("B200", 10, 0, 2.0),
      new Family("GH200", 9, 0, 1.2),
      new Family("H200", 9, 0, 1.3),
      new Family("H100", 9, 0, 1.0),
      new Family("H800", 9, 0, 0.95),
      new Family("L40", 8, 9, 0.5),
      new Family("L4", 8, 9, 0.25),
      new Family("RTX 40", 8, 9, 0.45),
      new Family("RTX 6000 ADA", 8, 9, 0.5),
      new Family("A100", 8, 0, 0.65),
      new Family("A800", 8, 0, 0.6),
      new Family("A30", 8, 0, 0.4),
      new Family("A40", 8, 6, 0.4),
      new Family("A10", 8, 6, 0.3),
      new Family("A6000", 8, 6, 0.4),
      new Family("RTX 30", 8, 6, 0.35),
      new Family("T4", 7, 5, 0.12),
      new Family("V100", 7, 0, 0.3));

  private static final Family UNKNOWN = new Family("", 8, 0, 0.4);

  private GpuSpecs() {
  }

  /** The VRAM in GB the name states ("NVIDIA H100 80GB HBM3" → 80), or {@link #DEFAULT_VRAM_GB}. */
  static int vramGb(String gpuInfo) {
    if (gpuInfo != null) {
      Matcher m = SIZE.matcher(gpuInfo);
      while (m.find()) {
        long gb = Math.round(Double.parseDouble(m.group(1)));
        if (gb >= 1 && gb <= 4096) {
          return (int) gb;
        }
      }
    }
    return DEFAULT_VRAM_GB;
  }

  /** {@code [major, minor]}. */
  static int[] computeCapability(String gpuInfo) {
    Family f = family(gpuInfo);
    return new int[] {f.major(), f.minor()};
  }

  /** Decode speed relative to an H100 (1.0). */
  static double speed(String gpuInfo) {
    return family(gpuInfo).speed();
  }

  private static Family family(String gpuInfo) {
    if (gpuInfo == null) {
      return UNKNOWN;
    }
    String name = gpuInfo.toUpperCase(Locale.ROOT);
    for (Family f : FAMILIES) {
      if (name.contains(f.fragment())) {
        return f;
      }
    }
    return UNKNOWN;
  }
}
