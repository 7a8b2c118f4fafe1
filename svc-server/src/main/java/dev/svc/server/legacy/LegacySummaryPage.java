package dev.svc.server.legacy;

import dev.svc.server.results.ResultsScan;
import dev.svc.server.results.ScannedResult;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** Renders the legacy viewer's self-contained HTML summary table; every file value is escaped. */
final class LegacySummaryPage {

  private static final String STYLE = """
      body{font-family:system-ui,sans-serif;margin:2rem;color:#222;background:#fafafa}
      h1{font-size:1.4rem;margin-bottom:.2rem}
      .note{color:#666;margin-top:0}
      table{border-collapse:collapse;width:100%;background:#fff}
      th,td{border:1px solid #ddd;padding:.4rem .6rem;text-align:left;font-size:.9rem}
      th{background:#f0f0f0}
      .pass{color:#17692e;font-weight:600}.fail{color:#a61b1b;font-weight:600}
      .problems{color:#8a5a00;font-size:.85rem}
      """;

  private LegacySummaryPage() {
  }

  static String render(ResultsScan scan, List<Path> roots) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<title>svc results (legacy view)</title><style>" + STYLE + "</style></head><body>"
        + "<h1>svc benchmark results</h1>"
        + "<p class=\"note\">Legacy read-only view: results are read from metrics.json files on disk"
        + " on every page load; nothing can be changed here. Scanned: "
        + escape(roots.stream().map(Path::toString).collect(Collectors.joining(", "))) + "</p>"
        + table(scan.results())
        + problems(scan.problems())
        + "</body></html>\n";
  }

  private static String table(List<ScannedResult> results) {
    if (results.isEmpty()) {
      return "<p>No metrics.json files found.</p>";
    }
    StringBuilder rows = new StringBuilder();
    for (int i = 0; i < results.size(); i++) {
      rows.append(row(i, results.get(i)));
    }
    return "<table><thead><tr><th>Timestamp</th><th>Model</th><th>Engine</th><th>Suite</th>"
        + "<th>Result</th><th>Benchmarks</th><th>Headline</th></tr></thead><tbody>"
        + rows + "</tbody></table>";
  }

  private static String row(int index, ScannedResult result) {
    String status = result.passed()
        ? "<td class=\"pass\">passed</td>"
        : "<td class=\"fail\">failed</td>";
    return "<tr><td><a href=\"/api/results/" + index + "\">" + escape(result.timestamp())
        + "</a></td><td>" + escape(result.model()) + "</td><td>" + escape(result.engine())
        + "</td><td>" + escape(result.suiteName()) + "</td>" + status
        + "<td>" + benchmarkCount(result.data()) + "</td><td>"
        + escape(HeadlineMetric.of(result.data()).orElse("")) + "</td></tr>";
  }

  private static String benchmarkCount(JsonObject data) {
    if (data.getValue("total_benchmarks") instanceof Number total) {
      return String.valueOf(total.longValue());
    }
    if (data.getValue("results") instanceof JsonArray results) {
      return String.valueOf(results.size());
    }
    return "";
  }

  private static String problems(List<String> problems) {
    if (problems.isEmpty()) {
      return "";
    }
    String items = problems.stream()
        .map(p -> "<li>" + escape(p) + "</li>")
        .collect(Collectors.joining());
    return "<div class=\"problems\"><p>Skipped " + problems.size() + " unreadable file(s):</p><ul>"
        + items + "</ul></div>";
  }

  private static String escape(String text) {
    return HtmlText.escape(text);
  }
}
