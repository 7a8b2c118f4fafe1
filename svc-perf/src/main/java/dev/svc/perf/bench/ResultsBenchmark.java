package dev.svc.perf.bench;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A server whose results directory holds many metrics.json files: its first start (which indexes
 * them all), its later starts on that HOME (which find them indexed), and its RSS once a page of
 * results has been listed many times, as a dashboard left open and scripts polling do. Usage:
 * scripts/bench-server results [--results 10000] [--starts 3] [--list-calls 1000] [--doc-bytes 4000].
 */
public final class ResultsBenchmark {

  private static final int PER_PAGE = 50;

  private ResultsBenchmark() {
  }

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, Set.of("results", "starts", "list-calls", "doc-bytes"));
    int count = args.integer("results", 10_000);
    int starts = args.integer("starts", 3);
    int listCalls = args.integer("list-calls", 1_000);
    int docBytes = args.integer("doc-bytes", 4_000);
    System.out.println("A server with many indexed results: start, and RSS after listing them");
    System.out.printf("%d metrics.json files of about %d bytes; %d starts on the existing HOME; %d list calls"
        + " (GET /api/v1/results, %d a page, every page in turn)%n", count, docBytes, starts, listCalls, PER_PAGE);
    System.out.println(MachineState.header() + "; " + ServerProcess.jvmOptions());
    ServerProcess.HealthProbe.warm();
    MachineState.begin(); // loads OSHI before anything is measured
    Path home = ServerProcess.newHome();
    try {
      long wrote = System.nanoTime();
      new ListSeed(new ListSeed.Plan(0, count, 0, 0, 0, 0, 0, docBytes), Instant.now())
          .writeMetricsFiles(home.resolve("results"));
      System.out.printf(Locale.ROOT, "  wrote the files in %.1f s%n", (System.nanoTime() - wrote) / 1e9);
      MachineState machine = MachineState.begin();
      try (ServerProcess server = ServerProcess.start(home, true)) {
        double t = server.awaitHealthy(Duration.ofMinutes(10)).toNanos() / 1e9;
        long listed = total(server);
        System.out.printf(Locale.ROOT, "  first start (indexes them): healthy after %.2f s (server CPU %.1f s);"
            + " %d results listed   %s%n", t, ProcessCpu.seconds(server.pid()).orElse(Double.NaN), listed,
            machine.since());
        if (listed != count) {
          throw new IllegalStateException("the server lists " + listed + " results, not " + count);
        }
      }
      List<Double> times = new ArrayList<>();
      for (int s = 1; s <= starts; s++) {
        machine = MachineState.begin();
        try (ServerProcess server = ServerProcess.start(home, true)) {
          double t = server.awaitHealthy(Duration.ofMinutes(10)).toNanos() / 1e9;
          times.add(t);
          double cpu = ProcessCpu.seconds(server.pid()).orElse(Double.NaN);
          double idle = Rss.kib(server.pid()).orElse(0) / 1024.0;
          String after = "";
          if (s == starts) {
            try (Rss.Sampler rss = new Rss.Sampler(server.pid(), 100)) {
              long started = System.nanoTime();
              listPages(server, listCalls, count);
              after = String.format(Locale.ROOT, "; after %d list calls (%.1f s) RSS %.0f MiB, at most %.0f MiB",
                  listCalls, (System.nanoTime() - started) / 1e9, Rss.kib(server.pid()).orElse(0) / 1024.0,
                  rss.maxKib() / 1024.0);
            }
          }
          System.out.printf(Locale.ROOT, "  start %d on the existing HOME: healthy after %.2f s (server CPU %.1f s),"
              + " RSS %.0f MiB%s   %s%n", s, t, cpu, idle, after, machine.since());
        }
      }
      System.out.printf(Locale.ROOT, "  range: start on the existing HOME %s s (target ≤ 3 s)%n",
          HeartbeatBenchmark.range(times, d -> d, "%.2f"));
    } finally {
      ServerProcess.delete(home);
    }
  }

  private static long total(ServerProcess server) throws Exception {
    return new JsonObject(get(server, "/api/v1/results?per_page=1")).getLong("total");
  }

  /** Lists every page of results in turn, newest first, {@code calls} times in all. */
  private static void listPages(ServerProcess server, int calls, int count) throws Exception {
    int pages = Math.max(1, (count + PER_PAGE - 1) / PER_PAGE);
    for (int i = 0; i < calls; i++) {
      get(server, "/api/v1/results?per_page=" + PER_PAGE + "&page=" + (i % pages + 1));
    }
  }

  private static String get(ServerProcess server, String path) throws Exception {
    HttpClient client = ServerProcess.HealthProbe.CLIENT;
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
        .timeout(Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("GET " + path + ": " + response.statusCode() + " " + response.body());
    }
    return response.body();
  }
}
