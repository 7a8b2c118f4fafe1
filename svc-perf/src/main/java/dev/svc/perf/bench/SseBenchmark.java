package dev.svc.perf.bench;

import dev.svc.core.EventLoops;
import dev.svc.core.protocol.HeartbeatAnswer;
import dev.svc.perf.fleet.CreatedResource;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Many subscribers on the live log of one running quick test
 * ({@code GET /api/v1/events/stream/<test id>}, what the dashboard's test page opens through
 * live-log.js), while the agent that runs the test posts log batches at a steady rate
 * ({@code POST /api/v1/quicktest/<id>/logs} with {@code seq}), each line carrying the moment its
 * batch was sent. Every subscriber counts what it received: delivery delay (receive − send, one
 * JVM's clock), events that never came, events that came twice; one whose stream the server drops
 * reconnects with {@code Last-Event-ID} as EventSource does, and is counted. The test then
 * completes, which ends every stream after its last event. Before the measured run the agent posts
 * the same load for {@code --warmup} seconds (lines the subscribers do not count), so that the
 * figures are those of a server whose delivery path is compiled, not of its JIT. Usage:
 * scripts/bench-server sse [--subscribers 1000] [--rate 10] [--batch 2] [--seconds 10] [--warmup 5]
 * [--scheme https|http].
 */
public final class SseBenchmark {

  private SseBenchmark() {
  }

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, Set.of("subscribers", "rate", "batch", "seconds", "warmup", "scheme"));
    int subscribers = args.integer("subscribers", 1000);
    int rate = args.integer("rate", 10);
    int batch = args.integer("batch", 2);
    int seconds = args.integer("seconds", 10);
    int warmup = args.integer("warmup", 5);
    boolean tls = !args.string("scheme", "https").equals("http");
    System.out.println("SSE: subscribers on one running test's live log");
    System.out.printf("%d subscribers, %d log lines/s in batches of %d, %d s after %d s of warm-up, %s%n", subscribers,
        rate, batch, seconds, warmup, tls ? "HTTPS (the agent with its client certificate)" : "plain HTTP (--insecure)");
    System.out.println(MachineState.header());
    // one event loop per core for the subscribers, and one more, used by the producer alone, so that
    // the batches leave on time however busy the subscribers' loops are
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Runtime.getRuntime().availableProcessors() + 1)
        .setPreferNativeTransport(true));
    try (ServerProcess server = ServerProcess.start(ServerProcess.newHome(), tls)) {
      MachineState.begin(); // loads OSHI before anything is measured
      server.awaitHealthy(Duration.ofSeconds(60));
      run(vertx, server, subscribers, rate, batch, seconds, warmup);
      server.close();
      ServerProcess.delete(server.home());
    } finally {
      vertx.close().await();
    }
  }

  private static void run(Vertx vertx, ServerProcess server, int subscriberCount, int rate, int batch, int seconds,
      int warmup) throws Exception {
    BenchAgent agent = BenchAgent.register(vertx, server, "bench-gpu-live");
    HttpClientOptions agentOptions = agent.clientOptions(server);
    String testId = CreatedResource.parse(BenchAgent.call(vertx, BenchAgent.options(server, null), HttpMethod.POST, "/api/v1/quicktest", null,
        new JsonObject().put("agent_id", agent.id()).put("model_path", "/models/bench/model.gguf")
            .put("engine_name", "llama_cpp").put("force", true), 202)).id();
    List<HeartbeatAnswer.Command> commands = HeartbeatAnswer.from(BenchAgent.call(vertx, agentOptions, HttpMethod.POST,
        agent.heartbeatPath(), agent.token(), new JsonObject().put("status", "idle"), 200)).commands();
    if (commands.stream().noneMatch(c -> testId.equals(c.testId()))) {
      throw new IllegalStateException("the heartbeat did not hand out test " + testId + ": "
          + new JsonArray(commands.stream().map(HeartbeatAnswer.Command::toJson).toList()));
    }
    BenchAgent.call(vertx, agentOptions, HttpMethod.POST, "/api/v1/quicktest/" + testId + "/status", agent.token(),
        new JsonObject().put("status", "running"), 200);
    System.out.println("server: pid " + server.pid() + ", test " + testId + " running; RSS "
        + Rss.mib(Rss.kib(server.pid()).orElse(0)));

    int loops = Runtime.getRuntime().availableProcessors();
    // event loop contexts are handed out round robin: the producer's comes first, the subscribers' next
    EventLoops.Contexts loopContexts = EventLoops.contexts(vertx, loops + 1).await();
    Context producerContext = loopContexts.get(0);
    List<Context> contexts = new ArrayList<>();
    List<HttpClientAgent> clients = new ArrayList<>();
    HttpClientOptions readerOptions = BenchAgent.options(server, null).setIdleTimeout(0);
    for (int i = 0; i < loops; i++) {
      Context context = loopContexts.get(i + 1);
      contexts.add(context);
      Promise<HttpClientAgent> made = Promise.promise();
      context.runOnContext(v -> made.complete(vertx.createHttpClient(readerOptions,
          new PoolOptions().setHttp1MaxSize(subscriberCount / loops + 1))));
      clients.add(made.future().await());
    }
    int expected = (seconds * rate / batch) * batch;
    List<Subscriber> subscribers = new ArrayList<>();
    long connectStart = System.nanoTime();
    for (int i = 0; i < subscriberCount; i += 100) {
      List<Future<Void>> connected = new ArrayList<>();
      for (int j = i; j < Math.min(subscriberCount, i + 100); j++) {
        Subscriber s = new Subscriber(contexts.get(j % loops), clients.get(j % loops), testId, expected);
        subscribers.add(s);
        connected.add(s.start());
      }
      Future.all(connected).await(); // in hundreds, as a crowd of browsers arrives
    }
    System.out.printf(Locale.ROOT, "%d subscribers connected in %.1f s; RSS %s%n", subscriberCount,
        (System.nanoTime() - connectStart) / 1e9, Rss.mib(Rss.kib(server.pid()).orElse(0)));

    if (warmup > 0) {
      new Producer(vertx, producerContext, agentOptions, agent, testId, rate, batch, warmup * rate / batch * batch,
          "warm-line ", 0).run().await();
      System.out.printf("warm-up: %d s of the same load, not counted%n", warmup);
    }
    MachineState machine = MachineState.begin();
    long self = ProcessHandle.current().pid();
    double[] cpu = {ProcessCpu.seconds(server.pid()).orElse(Double.NaN), ProcessCpu.seconds(self).orElse(Double.NaN)};
    Producer producer;
    Samples postMs;
    long started = System.nanoTime();
    try (Rss.Sampler rss = new Rss.Sampler(server.pid(), 200)) {
      producer = new Producer(vertx, producerContext, agentOptions, agent, testId, rate, batch, expected, "bench-line ",
          warmup * rate / batch);
      postMs = producer.run().await();
      long sentEnd = System.nanoTime();
      BenchAgent.call(vertx, agentOptions, HttpMethod.POST, "/api/v1/quicktest/" + testId + "/status", agent.token(),
          new JsonObject().put("status", "completed"), 200);
      List<Future<Void>> ended = subscribers.stream().map(s -> s.ended.future()).toList();
      try {
        Future.all(ended).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        System.out.println("WARNING: not every stream ended within 60 s of the test's completion");
      }
      long lastReceive = subscribers.stream().mapToLong(s -> s.lastLogReceived).max().orElse(sentEnd);
      String state = machine.since();
      cpu[0] = ProcessCpu.seconds(server.pid()).orElse(Double.NaN) - cpu[0];
      cpu[1] = ProcessCpu.seconds(self).orElse(Double.NaN) - cpu[1];
      report(subscribers, producer, postMs, expected, started, sentEnd, lastReceive, state, rss, cpu);
    } finally {
      for (HttpClientAgent client : clients) {
        client.close().await();
      }
    }
  }

  private static void report(List<Subscriber> subscribers, Producer producer, Samples postMs, int expected, long started,
      long sentEnd, long lastReceive, String machine, Rss.Sampler rss, double[] cpu) {
    Samples delays = new Samples();
    long received = 0;
    long lost = 0;
    long duplicates = 0;
    long reconnects = 0;
    int incomplete = 0;
    int unfinished = 0;
    java.util.Map<String, Integer> reasons = new java.util.TreeMap<>();
    for (Subscriber s : subscribers) {
      s.dropReasons.forEach((why, n) -> reasons.merge(why, n, Integer::sum));
      delays.addAll(s.delaysMs);
      received += s.logEvents;
      int missing = expected - s.seen.cardinality();
      lost += missing;
      incomplete += missing > 0 ? 1 : 0;
      duplicates += s.duplicates;
      reconnects += s.reconnects;
      unfinished += s.ended.future().isComplete() ? 0 : 1;
    }
    double window = (lastReceive - started) / 1e9;
    System.out.printf(Locale.ROOT, "sent: %d lines in %d batches over %.1f s (%.1f lines/s); POST /logs %s%n",
        producer.sent, producer.batches, (sentEnd - started) / 1e9, producer.sent / ((sentEnd - started) / 1e9),
        postMs.describeMs());
    System.out.printf(Locale.ROOT, "delivered: %,d events to %d subscribers, %,.0f events/s (first send to last"
        + " receive, %.1f s)%n", received, subscribers.size(), received / window, window);
    System.out.println("delivery delay (receive − send): " + delays.describeMs() + " (target: p99 < 100 ms)");
    System.out.printf("lost: %d (%d subscribers missed events), duplicates: %d, reconnects after a drop: %d,"
        + " streams not ended: %d (target: 0 lost)%n", lost, incomplete, duplicates, reconnects, unfinished);
    if (!reasons.isEmpty()) {
      System.out.println("  why streams were dropped: " + reasons);
    }
    System.out.printf(Locale.ROOT, "CPU: server %.1f s (%.1f µs per delivered event), this client %.1f s;"
        + " server RSS at most %s%n", cpu[0], cpu[0] * 1e6 / Math.max(1, received), cpu[1], Rss.mib(rss.maxKib()));
    System.out.println(machine);
  }

  /**
   * The agent's side: a log batch every {@code batch / rate} seconds, each line "{@code <prefix><n> <send nanos>}"
   * (the subscribers count "bench-line " alone); batch numbers ({@code seq}) from {@code firstSeq}.
   */
  private static final class Producer {
    private final Vertx vertx;
    private final HttpClientAgent client;
    private final BenchAgent agent;
    private final String testId;
    private final long periodMs;
    private final int batch;
    private final int total;
    private final Samples postMs = new Samples();
    int sent;
    int batches;
    private final String prefix;
    private int nextSeq;
    private int inFlight;
    private boolean stopped;

    private final Context context;

    Producer(Vertx vertx, Context context, HttpClientOptions options, BenchAgent agent, String testId, int rate,
        int batch, int total, String prefix, int firstSeq) {
      this.prefix = prefix;
      this.nextSeq = firstSeq;
      this.vertx = vertx;
      this.context = context;
      this.client = vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(8));
      this.agent = agent;
      this.testId = testId;
      this.periodMs = Math.max(1, Math.round(1000.0 * batch / rate));
      this.batch = batch;
      this.total = total;
    }

    Future<Samples> run() {
      Promise<Samples> done = Promise.promise();
      RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST).setURI("/api/v1/quicktest/" + testId
          + "/logs").putHeader("Content-Type", "application/json").putHeader("Authorization", "Bearer " + agent.token());
      context.runOnContext(v -> vertx.setPeriodic(1, periodMs, timer -> {
        if (sent >= total) {
          vertx.cancelTimer(timer);
          stopped = true;
          finishIfDone(done);
          return;
        }
        int first = sent;
        int seq = nextSeq++;
        batches++;
        sent += batch;
        inFlight++;
        client.request(request).compose(req -> {
          long stamp = System.nanoTime();
          JsonArray lines = new JsonArray();
          for (int i = 0; i < batch; i++) {
            lines.add(prefix + (first + i) + " " + stamp);
          }
          return req.send(new JsonObject().put("lines", lines).put("seq", seq).toBuffer())
              .compose(response -> response.body().map(body -> {
                if (response.statusCode() != 200) {
                  throw new IllegalStateException("POST logs answered " + response.statusCode() + ": " + body);
                }
                postMs.add((System.nanoTime() - stamp) / 1e6);
                return null;
              }));
        }).onComplete(ar -> {
          inFlight--;
          if (ar.failed()) {
            vertx.cancelTimer(timer);
            done.tryFail(ar.cause());
          }
          finishIfDone(done);
        });
      }));
      return done.future().eventually(client::close);
    }

    private void finishIfDone(Promise<Samples> done) {
      if (stopped && inFlight == 0) {
        done.tryComplete(postMs);
      }
    }
  }

  /** One browser on the test's page: its stream, what it received, and its reconnects. */
  private static final class Subscriber implements SseParser.Listener {
    private final Context context;
    private final HttpClientAgent client;
    private final String path;
    final BitSet seen;
    final Samples delaysMs = new Samples();
    final Promise<Void> ended = Promise.promise();
    private final Promise<Void> connected = Promise.promise();
    private int attempts;
    private String lastId;
    private boolean terminal;
    long logEvents;
    long duplicates;
    int reconnects;
    long lastLogReceived;
    final java.util.Map<String, Integer> dropReasons = new java.util.TreeMap<>();

    Subscriber(Context context, HttpClientAgent client, String testId, int expected) {
      this.context = context;
      this.client = client;
      this.path = "/api/v1/events/stream/" + testId;
      this.seen = new BitSet(expected);
    }

    Future<Void> start() {
      context.runOnContext(v -> open());
      return connected.future();
    }

    private void open() {
      int attempt = ++attempts;
      RequestOptions request = new RequestOptions().setMethod(HttpMethod.GET).setURI(path)
          .putHeader("Accept", "text/event-stream");
      if (lastId != null) {
        request.putHeader("Last-Event-ID", lastId);
      }
      SseParser parser = new SseParser(this);
      client.request(request).compose(req -> req.send()).onComplete(ar -> {
        if (ar.failed()) {
          dropped(attempt, ar.cause().toString());
          return;
        }
        HttpClientResponse response = ar.result();
        if (response.statusCode() == 204 && terminal) {
          ended.tryComplete();
          return;
        }
        if (response.statusCode() != 200) {
          response.body().onComplete(body -> dropped(attempt, "HTTP " + response.statusCode()));
          return;
        }
        response.handler(parser::feed);
        response.exceptionHandler(err -> dropped(attempt, err.toString()));
        response.endHandler(v -> {
          if (terminal) {
            ended.tryComplete();
          } else {
            dropped(attempt, "the stream ended before the test did");
          }
        });
      });
    }

    /**
     * As EventSource: reconnect with the last id seen (at once: a benchmark has no reason to wait
     * 3 s). Only the current attempt's first failure counts (a reset can end and fail a response).
     */
    private void dropped(int attempt, String why) {
      if (ended.future().isComplete() || attempt != attempts) {
        return;
      }
      reconnects++;
      dropReasons.merge((connected.future().isComplete() ? "while streaming: " : "while connecting: ") + why, 1,
          Integer::sum);
      if (reconnects > 100) {
        connected.tryFail("stream keeps failing: " + why);
        ended.tryFail("stream keeps failing: " + why);
        return;
      }
      open();
    }

    @Override
    public void comment(String text) {
      connected.tryComplete();
    }

    @Override
    public void event(String id, String type, String data) {
      long now = System.nanoTime();
      lastId = id;
      if (type.equals("log")) {
        int at = data.indexOf("bench-line ");
        if (at < 0) {
          return;
        }
        int space = data.indexOf(' ', at + 11);
        int end = data.indexOf('"', space);
        int n = Integer.parseInt(data.substring(at + 11, space));
        long stamp = Long.parseLong(data.substring(space + 1, end));
        logEvents++;
        lastLogReceived = now;
        if (seen.get(n)) {
          duplicates++;
        } else {
          seen.set(n);
        }
        delaysMs.add((now - stamp) / 1e6);
      } else if (type.equals("status") && data.contains("\"completed\"")) {
        terminal = true;
      }
    }
  }
}
