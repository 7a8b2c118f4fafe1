package dev.svc.bench.load;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.measure.ClientCpu;
import dev.svc.bench.measure.EngineCpu;
import dev.svc.bench.measure.RequestRecord;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Offers requests to an engine under a load model: warmup requests first, one at a time and
 * excluded from every statistic, then a collection of the client's own garbage, then the measured
 * ones — closed loop (N workers, each sending its next request when the previous finished) or open
 * loop (sent at the scheduled instants, whatever the engine's state, each record carrying its
 * t_sched). Runs on one Vert.x context. Every completed request is counted in its
 * {@link LoadProgress}; the client's own CPU is sampled around the measured requests.
 */
public final class LoadRunner {

  private final Vertx vertx;
  private final StreamingClient client;
  private final LoadProgress progress;
  private final EngineCpu engineCpu;

  public LoadRunner(Vertx vertx, StreamingClient client) {
    this(vertx, client, new LoadProgress());
  }

  public LoadRunner(Vertx vertx, StreamingClient client, LoadProgress progress) {
    this(vertx, client, progress, EngineCpu.unknown(null));
  }

  /** {@code engineCpu} is read with the client's CPU, so that the engine's use of shared cores is told apart. */
  public LoadRunner(Vertx vertx, StreamingClient client, LoadProgress progress, EngineCpu engineCpu) {
    this.vertx = vertx;
    this.client = client;
    this.progress = progress;
    this.engineCpu = engineCpu;
  }

  /**
   * The records of one run: warmup and measured, each in the order the requests were built, and the
   * client's CPU while the measured ones ran.
   */
  public record Run(List<RequestRecord> warmup, List<RequestRecord> measured, ClientCpu clientCpu) {
  }

  /**
   * Sends {@code warmup} requests sequentially, then {@code count} measured requests under
   * {@code model} (for open-loop models, {@code count} is how many are scheduled). {@code requests}
   * builds request i (warmup requests are numbered from -warmup to -1).
   */
  public Future<Run> run(LoadModel model, int count, int warmup, long seed, IntFunction<RequestSpec> requests) {
    if (model.mode() == LoadModel.Mode.SWEEP) {
      return Future.failedFuture(new IllegalArgumentException("A sweep is a series of runs; run each of its steps"));
    }
    Promise<Run> promise = Promise.promise();
    Context context = vertx.getOrCreateContext();
    progress.begin(warmup, count);
    context.runOnContext(v -> closedLoop(1, warmup, i -> requests.apply(i - warmup), true)
        .compose(warm -> collectGarbage().compose(cpuBefore -> {
      Future<List<RequestRecord>> measured = model.openLoop()
          ? openLoop(new ArrivalSchedule(model, seed, Math.max(1, count)), count, requests)
          : closedLoop(model.mode() == LoadModel.Mode.SEQUENTIAL ? 1 : model.concurrency(), count, requests, false);
      return measured.compose(m -> vertx.executeBlocking(() -> ClientCpu.sample(engineCpu), false)
          .map(cpuAfter -> new Run(warm, m, ClientCpu.between(cpuBefore, cpuAfter))));
    })).onComplete(promise));
    return promise.future();
  }

  /**
   * Collects the client's garbage, on a worker thread, before the measured requests, so that what
   * the warmup (or anything before the run) left behind is not collected during them. On ZGC, which
   * {@code svc run} uses, a cycle's concurrent marking takes one of the cores the client reads
   * chunks with, and its first cycles start at fixed shares of the heap (10, 20, 30 %) whatever
   * the allocation rate. In the load-generator benchmark, such a cycle inside the measured run made
   * chunks wait up to 10 ms. Then samples the client's CPU, where the measured requests start.
   */
  private Future<ClientCpu.Sample> collectGarbage() {
    return vertx.executeBlocking(() -> {
      System.gc();
      return ClientCpu.sample(engineCpu);
    }, false);
  }

  private Future<List<RequestRecord>> closedLoop(int workers, int count, IntFunction<RequestSpec> requests,
      boolean warmup) {
    RequestRecord[] records = new RequestRecord[count];
    if (count == 0) {
      return Future.succeededFuture(List.of());
    }
    Promise<List<RequestRecord>> all = Promise.promise();
    int[] next = {0};
    int[] finished = {0};
    Runnable[] worker = new Runnable[1];
    worker[0] = () -> {
      if (next[0] >= count || client.closed()) {
        return; // done, or abandoned (the client was closed under it: its engine died)
      }
      int index = next[0]++;
      client.send(requests.apply(index), RequestRecord.UNSCHEDULED).onComplete(ar -> {
        records[index] = ar.result();
        progress.completed(ar.result(), warmup);
        if (++finished[0] == count) {
          all.complete(List.of(records));
        } else {
          worker[0].run();
        }
      });
    };
    for (int i = 0; i < Math.min(workers, count); i++) {
      worker[0].run();
    }
    return all.future();
  }

  private Future<List<RequestRecord>> openLoop(ArrivalSchedule schedule, int count, IntFunction<RequestSpec> requests) {
    RequestRecord[] records = new RequestRecord[count];
    if (count == 0) {
      return Future.succeededFuture(List.of());
    }
    Promise<List<RequestRecord>> all = Promise.promise();
    long start = System.nanoTime();
    int[] sent = {0};
    int[] finished = {0};
    long[] due = {start + schedule.next()};
    Runnable[] tick = new Runnable[1];
    tick[0] = () -> {
      if (client.closed()) {
        return; // abandoned
      }
      long now = System.nanoTime();
      while (sent[0] < count && due[0] <= now) {
        int index = sent[0]++;
        client.send(requests.apply(index), due[0]).onComplete(ar -> {
          records[index] = ar.result();
          progress.completed(ar.result(), false);
          if (++finished[0] == count) {
            all.complete(List.of(records));
          }
        });
        due[0] = schedule.hasNext() ? start + schedule.next() : Long.MAX_VALUE;
        now = System.nanoTime();
      }
      if (sent[0] < count) {
        vertx.timer(Math.max(1, due[0] - now), TimeUnit.NANOSECONDS).onComplete(t -> tick[0].run());
      }
    };
    tick[0].run();
    return all.future();
  }
}
