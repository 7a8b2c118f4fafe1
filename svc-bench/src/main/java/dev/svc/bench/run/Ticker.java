package dev.svc.bench.run;

import dev.svc.bench.suite.BenchmarkSettings;
import io.vertx.core.Vertx;
import java.io.PrintStream;
import java.util.Locale;

/** The progress bar of a running benchmark: elapsed time, redrawn in place once a second on a terminal. */
final class Ticker {

  private final Vertx vertx;
  private final PrintStream out;
  private final long timer;
  private final long started = System.nanoTime();
  private final boolean terminal = System.console() != null;

  private Ticker(Vertx vertx, PrintStream out, BenchmarkSettings settings) {
    this.vertx = vertx;
    this.out = out;
    this.timer = terminal ? vertx.setPeriodic(1000, id -> draw(settings)) : -1;
  }

  static Ticker start(Vertx vertx, PrintStream out, BenchmarkSettings settings) {
    return new Ticker(vertx, out, settings);
  }

  private void draw(BenchmarkSettings settings) {
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
    int width = 30;
    int filled = (int) (seconds % (width + 1));
    out.printf(Locale.ROOT, "\r      [%s%s] %s %ds ", "#".repeat(filled), ".".repeat(width - filled), settings.name(), seconds);
    out.flush();
  }

  void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      out.print("\r" + " ".repeat(60) + "\r");
      out.flush();
    }
  }
}
