package dev.svc.server.results;

import dev.svc.server.json.BoundedJson;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Finds and parses metrics.json files under results directories; blocking, run it on a worker. */
public final class ResultsScanner {

  private static final Comparator<ScannedResult> NEWEST_FIRST =
      Comparator.comparing(ScannedResult::timestamp)
          .reversed()
          .thenComparing(r -> r.path().toString());

  /** Scans every existing root; missing roots are skipped, unreadable files reported as problems. */
  public ResultsScan scan(List<Path> roots) {
    return scan(roots, Set.of());
  }

  /**
   * As {@link #scan(List)}, leaving out the files whose real path is in {@code indexed} without
   * reading them: a start with thousands of indexed results would otherwise parse each again only
   * to find it stored.
   */
  public ResultsScan scan(List<Path> roots, Set<String> indexed) {
    List<String> problems = new ArrayList<>();
    List<ScannedResult> results = new ArrayList<>();
    for (Path file : distinctFiles(roots, problems)) {
      if (!indexed.contains(file.toString())) {
        read(file, problems).ifPresent(results::add);
      }
    }
    results.sort(NEWEST_FIRST);
    return new ResultsScan(results, problems);
  }

  /** Real paths of the metrics.json files under all roots, each once. */
  private static Set<Path> distinctFiles(List<Path> roots, List<String> problems) {
    Set<Path> files = new LinkedHashSet<>();
    for (Path root : roots) {
      if (!Files.isDirectory(root)) {
        continue;
      }
      try {
        files.addAll(MetricsFileFinder.find(root.toRealPath(), problems));
      } catch (IOException e) {
        problems.add(root + ": could not be scanned (" + e.getClass().getSimpleName() + ").");
      }
    }
    return files;
  }

  private static Optional<ScannedResult> read(Path file, List<String> problems) {
    try {
      Object parsed = BoundedJson.decode(Files.readAllBytes(file));
      if (parsed instanceof JsonObject data) {
        Instant mtime = Files.getLastModifiedTime(file).toInstant();
        return Optional.of(ScannedResult.fromJson(file, data, mtime));
      }
      problems.add(file + ": is not a JSON object.");
    } catch (BoundedJson.TooDeepException e) {
      problems.add(file + ": is nested deeper than " + BoundedJson.MAX_DEPTH + " levels.");
    } catch (DecodeException e) {
      // a write cut off (a full disk, a crash) leaves a document that stops before its end
      problems.add(file + (String.valueOf(e.getMessage()).contains("end-of-input")
          ? ": ends before its JSON does (cut short: an interrupted write or a full disk); not indexed."
          : ": is not valid JSON; not indexed."));
    } catch (IOException e) {
      problems.add(file + ": could not be read (" + e.getClass().getSimpleName() + ").");
    }
    return Optional.empty();
  }
}
