package dev.svc.bench.load;

import java.util.Locale;

/**
 * How requests are offered to the engine (docs/metrics.md, "Load models"): closed loop ({@code sequential},
 * {@code concurrency:N}), open loop ({@code rate:R}, {@code poisson:R}) or a {@code sweep} of both.
 */
public record LoadModel(Mode mode, int concurrency, double rate) {

  /** The load modes and their wire prefixes. */
  public enum Mode {
    SEQUENTIAL, CONCURRENCY, RATE, POISSON, SWEEP;

    String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public static final LoadModel SEQUENTIAL = new LoadModel(Mode.SEQUENTIAL, 1, 0);

  public LoadModel {
    if (concurrency < 1) {
      throw new IllegalArgumentException("Concurrency must be at least 1, got " + concurrency);
    }
    if ((mode == Mode.RATE || mode == Mode.POISSON) && !(rate > 0 && Double.isFinite(rate))) {
      throw new IllegalArgumentException("A " + mode.wireName() + " load needs a rate above 0 requests/s, got " + rate);
    }
  }

  public static LoadModel concurrency(int n) {
    return new LoadModel(Mode.CONCURRENCY, n, 0);
  }

  public static LoadModel rate(double requestsPerSecond) {
    return new LoadModel(Mode.RATE, 1, requestsPerSecond);
  }

  public static LoadModel poisson(double requestsPerSecond) {
    return new LoadModel(Mode.POISSON, 1, requestsPerSecond);
  }

  /**
   * A sweep whose max-throughput step runs {@code concurrency} workers; 1 leaves the number to the
   * sweep's default. Its wire form is {@code sweep} either way.
   */
  public static LoadModel sweep(int concurrency) {
    return new LoadModel(Mode.SWEEP, concurrency, 0);
  }

  /** Parses {@code sequential}, {@code concurrency:N}, {@code rate:R}, {@code poisson:R} or {@code sweep}. */
  public static LoadModel parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("Load model is empty; use sequential, concurrency:N, rate:R, poisson:R or sweep");
    }
    String value = text.trim().toLowerCase(Locale.ROOT);
    int colon = value.indexOf(':');
    String name = colon < 0 ? value : value.substring(0, colon);
    String argument = colon < 0 ? null : value.substring(colon + 1);
    switch (name) {
      case "sequential":
      case "sweep":
        if (argument != null) {
          throw new IllegalArgumentException("Load model " + name + " takes no argument: " + text);
        }
        return name.equals("sweep") ? sweep(1) : SEQUENTIAL;
      case "concurrency":
        return concurrency(integer(argument, text));
      case "rate":
        return rate(number(argument, text));
      case "poisson":
        return poisson(number(argument, text));
      default:
        throw new IllegalArgumentException("Unknown load model '" + text
            + "'; use sequential, concurrency:N, rate:R, poisson:R or sweep");
    }
  }

  public boolean openLoop() {
    return mode == Mode.RATE || mode == Mode.POISSON;
  }

  /** The wire form, as parsed and as recorded in metrics.json's {@code load.mode}. */
  public String wireName() {
    return switch (mode) {
      case SEQUENTIAL, SWEEP -> mode.wireName();
      case CONCURRENCY -> "concurrency:" + concurrency;
      case RATE, POISSON -> mode.wireName() + ":" + plain(rate);
    };
  }

  @Override
  public String toString() {
    return wireName();
  }

  private static int integer(String argument, String text) {
    try {
      return Integer.parseInt(require(argument, text));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Load model " + text + " needs a whole number of workers");
    }
  }

  private static double number(String argument, String text) {
    try {
      return Double.parseDouble(require(argument, text));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Load model " + text + " needs a rate in requests/s");
    }
  }

  private static String require(String argument, String text) {
    if (argument == null || argument.isBlank()) {
      throw new IllegalArgumentException("Load model " + text + " needs a value after the colon");
    }
    return argument.trim();
  }

  private static String plain(double value) {
    return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
  }
}
