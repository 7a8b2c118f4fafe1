package dev.svc.perf.bench;

import dev.svc.core.EventLoops;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * A closed-loop HTTP/1.1 load, as {@code wrk} makes it: a fixed number of kept-alive connections,
 * each sending its next request as soon as the previous one is answered. Connections are grouped in
 * lanes (one client, its options — e.g. one agent's certificate — and one request), and the lanes
 * take the client's event loops in turn, so that the client uses every core as wrk's threads do.
 * Latency is from just before a request is sent to the end of its response.
 */
public final class ClosedLoop {

  /** {@code connections} connections of one client sending {@code method path} with {@code body} (or none). */
  public record Lane(HttpClientOptions options, int connections, HttpMethod method, String path, String token,
      Buffer body) {
  }

  /** What one run measured: answered requests (2xx), failures (other statuses, or none), their latencies. */
  public record Result(long requests, long failures, double seconds, Samples latencyMs, TreeMap<Integer, Long> statuses,
      String machine, double serverCpuSeconds, double clientCpuSeconds) {
    public double perSecond() {
      return requests / seconds;
    }

    /** Latency percentile {@code p} (50 or 99) in ms; NaN when no request was answered. */
    public double latencyMs(int p) {
      var s = latencyMs.summary();
      return s == null ? Double.NaN : p == 50 ? s.p50() : p == 99 ? s.p99() : s.max();
    }

    /** The server's CPU time per answered request, in µs (NaN when it was not sampled). */
    public double serverCpuMicrosPerRequest() {
      return requests == 0 ? Double.NaN : serverCpuSeconds * 1e6 / requests;
    }

    /** "12,345 req/s  p50 1.23  p99 4.56  max 7.89 ms  CPU µs/req: server 80, client 40  0 failed". */
    public String describe() {
      var s = latencyMs.summary();
      return String.format(Locale.ROOT, "%,9.0f req/s  p50 %6.2f  p99 %6.2f  max %7.2f ms  CPU µs/req: server %,5.0f,"
          + " client %,4.0f  %s", perSecond(), s == null ? Double.NaN : s.p50(), s == null ? Double.NaN : s.p99(),
          s == null ? Double.NaN : s.max(), serverCpuMicrosPerRequest(),
          requests == 0 ? Double.NaN : clientCpuSeconds * 1e6 / requests,
          failures == 0 ? "0 failed" : failures + " failed " + statuses);
    }
  }

  private ClosedLoop() {
  }

  /**
   * Runs the lanes for {@code warmupMs} unmeasured, then {@code measureMs} measured: requests that
   * end inside the measured window count. Blocking; call it from outside Vert.x.
   */
  public static Result run(Vertx vertx, List<Lane> lanes, long warmupMs, long measureMs) {
    return run(vertx, lanes, warmupMs, measureMs, -1);
  }

  /** As {@link #run(Vertx, List, long, long)}, also counting the CPU time of process {@code serverPid} over the window. */
  public static Result run(Vertx vertx, List<Lane> lanes, long warmupMs, long measureMs, long serverPid) {
    return run(vertx, lanes, warmupMs, measureMs, serverPid > 0 ? List.of(serverPid) : List.of());
  }

  /** As {@link #run(Vertx, List, long, long)}, counting the CPU time of all {@code serverPids} (a cluster's nodes) together. */
  public static Result run(Vertx vertx, List<Lane> lanes, long warmupMs, long measureMs, List<Long> serverPids) {
    int loops = Math.max(1, Runtime.getRuntime().availableProcessors());
    List<Context> contexts = EventLoops.contexts(vertx, loops).await().contexts();
    long start = System.nanoTime();
    long measureFrom = start + warmupMs * 1_000_000L;
    long measureTo = measureFrom + measureMs * 1_000_000L;
    List<Future<Connection>> running = new ArrayList<>();
    List<HttpClientAgent> clients = new ArrayList<>();
    MachineState[] machine = new MachineState[1];
    double[] cpu = {Double.NaN, Double.NaN, Double.NaN, Double.NaN};
    long self = ProcessHandle.current().pid();
    Thread marker = new Thread(() -> {
      // the machine's state and the server's CPU time over the measured window only
      sleepUntil(measureFrom);
      machine[0] = MachineState.begin();
      cpu[0] = cpuOf(serverPids);
      cpu[2] = ProcessCpu.seconds(self).orElse(Double.NaN);
      sleepUntil(measureTo);
      cpu[1] = cpuOf(serverPids);
      cpu[3] = ProcessCpu.seconds(self).orElse(Double.NaN);
    });
    marker.start();
    for (int l = 0; l < lanes.size(); l++) {
      Lane lane = lanes.get(l);
      Context context = contexts.get(l % loops);
      Promise<HttpClientAgent> made = Promise.promise();
      context.runOnContext(v -> made.complete(vertx.createHttpClient(lane.options(),
          new PoolOptions().setHttp1MaxSize(lane.connections()))));
      HttpClientAgent client = made.future().await();
      clients.add(client);
      RequestOptions request = new RequestOptions().setMethod(lane.method()).setURI(lane.path());
      if (lane.body() != null) {
        request.putHeader("Content-Type", "application/json");
      }
      if (lane.token() != null) {
        request.putHeader("Authorization", "Bearer " + lane.token());
      }
      for (int c = 0; c < lane.connections(); c++) {
        Connection connection = new Connection(client, request, lane.body(), measureFrom, measureTo);
        Promise<Connection> done = Promise.promise();
        context.runOnContext(v -> connection.next(done));
        running.add(done.future());
      }
    }
    Future.all(running).await();
    try {
      marker.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    String state = machine[0] == null ? "machine: not sampled" : machine[0].since();
    Samples latency = new Samples();
    long requests = 0;
    long failures = 0;
    TreeMap<Integer, Long> statuses = new TreeMap<>();
    for (Future<Connection> f : running) {
      Connection c = f.result();
      latency.addAll(c.latencyMs);
      requests += c.requests;
      failures += c.failures;
      c.statuses.forEach((k, n) -> statuses.merge(k, n, Long::sum));
    }
    for (HttpClientAgent client : clients) {
      client.close().await();
    }
    return new Result(requests, failures, (measureTo - measureFrom) / 1e9, latency, statuses, state, cpu[1] - cpu[0],
        cpu[3] - cpu[2]);
  }

  /** The CPU seconds of these processes together; NaN when there are none or one cannot be read. */
  private static double cpuOf(List<Long> pids) {
    double sum = pids.isEmpty() ? Double.NaN : 0;
    for (long pid : pids) {
      sum += ProcessCpu.seconds(pid).orElse(Double.NaN);
    }
    return sum;
  }

  private static void sleepUntil(long nanoTime) {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      try {
        Thread.sleep(Math.max(1, left / 1_000_000L)); // waiting for a moment on the clock, not for another thread
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** One connection's loop; its state is touched only on its lane's event loop. */
  private static final class Connection {
    private final HttpClientAgent client;
    private final RequestOptions request;
    private final Buffer body;
    private final long measureFrom;
    private final long measureTo;
    final Samples latencyMs = new Samples();
    long requests;
    long failures;
    final TreeMap<Integer, Long> statuses = new TreeMap<>();

    Connection(HttpClientAgent client, RequestOptions request, Buffer body, long measureFrom, long measureTo) {
      this.client = client;
      this.request = request;
      this.body = body;
      this.measureFrom = measureFrom;
      this.measureTo = measureTo;
    }

    void next(Promise<Connection> done) {
      long sent = System.nanoTime();
      if (sent >= measureTo) {
        done.complete(this);
        return;
      }
      client.request(request)
          .compose(req -> body == null ? req.send() : req.send(body))
          .compose(response -> response.end().map(v -> response.statusCode()))
          .onComplete(ar -> {
            long ended = System.nanoTime();
            if (ended >= measureFrom && ended < measureTo) {
              int status = ar.succeeded() ? ar.result() : -1;
              if (status >= 200 && status <= 299) {
                requests++;
                latencyMs.add((ended - sent) / 1e6);
              } else {
                failures++; // -1: no answer (the connection failed)
                statuses.merge(status, 1L, Long::sum);
              }
            }
            next(done);
          });
    }
  }
}
