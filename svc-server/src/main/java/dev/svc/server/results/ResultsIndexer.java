package dev.svc.server.results;

import dev.svc.core.Ids;
import dev.svc.server.store.ResultStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Indexes the metrics.json files found on disk, so `svc run` output appears among the results. */
public final class ResultsIndexer {

  private static final Logger LOG = LoggerFactory.getLogger(ResultsIndexer.class);

  private final Vertx vertx;
  private final ResultStore results;
  private final Path homeResults;

  public ResultsIndexer(Vertx vertx, ResultStore results, Path homeResults) {
    this.vertx = vertx;
    this.results = results;
    this.homeResults = homeResults;
  }

  /**
   * Scans the results directory and the home's results; files already indexed (by path) are
   * skipped unread. A file is indexed once: one rewritten in place keeps its first document.
   */
  public Future<Integer> index(Path resultsDir) {
    return results.sourcePaths()
        .compose(indexed -> vertx.executeBlocking(
            () -> new ResultsScanner().scan(List.of(resultsDir, homeResults), indexed), false))
        .compose(scan -> {
          scan.problems().forEach(p -> LOG.warn("Skipped while indexing results: {}", p));
          Future<Integer> chain = Future.succeededFuture(0);
          for (ScannedResult r : scan.results()) {
            chain = chain.compose(n -> results.insertScanned(new ResultStore.NewResult(Ids.newId(), r.model(), r.engine(),
                r.suiteName(), r.timestamp(), r.passed(), r.data(), r.path().toString(), null, null, null))
                .map(added -> added ? n + 1 : n));
          }
          return chain;
        })
        .onSuccess(n -> LOG.info("Indexed {} new result(s) from {} and {}", n, resultsDir, homeResults));
  }
}
