package dev.svc.bench.run;

import dev.svc.bench.load.LoadProgress;
import io.vertx.core.Vertx;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The progress bar of a running benchmark: measured requests done of the total (the warmup's count
 * while it runs), a bar filled by that fraction, elapsed time, errors so far and, in a sweep, the step. On a
 * terminal it is redrawn in place once a second; otherwise it is printed as a plain line every ten
 * seconds, so captured output holds no carriage returns.
 */
final class Ticker {

  static final int WIDTH = 30;
  private static final String INDENT = "      ";

  private final Vertx vertx;
  private final PrintStream out;
  private final String benchmark;
  private final LoadProgress progress;
  private final boolean terminal;
  private final long started = System.nanoTime();
  private final long timer;
  private int drawn;
  private boolean stopped;

  private Ticker(Vertx vertx, PrintStream out, String benchmark, LoadProgress progress, boolean terminal) {
    this.vertx = vertx;
    this.out = out;
    this.benchmark = benchmark;
    this.progress = progress;
    this.terminal = terminal;
    this.timer = vertx.setPeriodic(terminal ? 1000 : 10_000, id -> draw());
  }

  static Ticker start(Vertx vertx, PrintStream out, String benchmark, LoadProgress progress) {
    return new Ticker(vertx, out, benchmark, progress, System.console() != null);
  }

  /** One progress line, without the carriage return or newline around it. */
  static String line(String benchmark, LoadProgress.Snapshot s, long elapsedSeconds) {
    int filled = s.total() <= 0 ? 0 : (int) Math.min(WIDTH, WIDTH * s.done() / s.total());
    StringBuilder line = new StringBuilder(INDENT).append('[').append("#".repeat(filled))
        .append("-".repeat(WIDTH - filled)).append("] ");
    if (s.warmingUp()) {
      line.append("warmup ").append(s.warmupDone()).append('/').append(s.warmupTotal());
    } else {
      line.append(s.done()).append('/').append(s.total()).append(" requests, ").append(s.errors())
          .append(s.errors() == 1 ? " error" : " errors");
    }
    line.append(", ").append(elapsed(elapsedSeconds)).append("  ").append(benchmark);
    return s.stage().isEmpty() ? line.toString() : line.append(", ").append(s.stage()).toString();
  }

  /** m:ss, or h:mm:ss from an hour on. */
  static String elapsed(long seconds) {
    return seconds >= 3600
        ? String.format(Locale.ROOT, "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
        : String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
  }

  private synchronized void draw() {
    if (stopped) {
      return;
    }
    String text = line(benchmark, progress.snapshot(), (System.nanoTime() - started) / 1_000_000_000L);
    if (terminal) {
      out.print("\r" + text + " ".repeat(Math.max(0, drawn - text.length())));
      drawn = text.length();
    } else {
      out.println(text);
    }
    out.flush();
  }

  synchronized void stop() {
    stopped = true;
    vertx.cancelTimer(timer);
    if (drawn > 0) {
      out.print("\r" + " ".repeat(drawn) + "\r");
      out.flush();
    }
  }
}
