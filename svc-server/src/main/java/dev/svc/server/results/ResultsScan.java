package dev.svc.server.results;

import java.util.List;

/**
 * What a scan found: the readable results, newest first, and one line per file it had to skip.
 *
 * @param results the parsed results, newest timestamp first
 * @param problems one line per skipped file or directory: its path and why
 */
public record ResultsScan(List<ScannedResult> results, List<String> problems) {

  public ResultsScan {
    results = List.copyOf(results);
    problems = List.copyOf(problems);
  }
}
