package dev.svc.server.web;

import dev.svc.core.metrics.Confidence;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Results as CSV (RFC 4180: comma-separated, CRLF line ends, fields with a comma, quote or line
 * break quoted with doubled quotes): a header, then one row per benchmark and metric, distributions
 * one row per statistic, nested objects under dotted metric names, the steps of a sweep under
 * {@code sweep.<step>.<key>} with steps numbered from 1 in the order run. Other lists (GPU memory
 * samples) are left out. Before a result's benchmarks, rows with no benchmark say what it measured
 * ({@link ResultProvenance}: svc and engine versions, image, launch arguments, model digest, seed,
 * repeats, prompts hashes), under their metrics.json keys. A repeated benchmark's rows (empty
 * {@code run_number}) hold the means of its runs with each figure's 95 % confidence interval
 * ({@code ci95_low}, {@code ci95_high}, over {@code ci_n} runs); each of its runs follows under
 * its own {@code run_number}, without intervals.
 */
final class ResultCsv {

  static final List<String> HEADER = List.of("result_id", "model", "engine", "suite", "timestamp", "simulated",
      "benchmark", "run_number", "metric", "statistic", "value", "unit", "ci95_low", "ci95_high", "ci_n");

  private static final int MAX_DEPTH = 3;

  private ResultCsv() {
  }

  static String of(List<ResultDocument> results) {
    StringBuilder out = new StringBuilder(header());
    results.forEach(r -> out.append(rowsOf(r)));
    return out.toString();
  }

  /** The header line, for an export written one result at a time. */
  static String header() {
    StringBuilder out = new StringBuilder();
    line(out, HEADER);
    return out.toString();
  }

  /** The lines of one result. */
  static String rowsOf(ResultDocument r) {
    StringBuilder out = new StringBuilder();
    rows(r).forEach(row -> line(out, row));
    return out.toString();
  }

  private static List<List<String>> rows(ResultDocument r) {
    List<List<String>> rows = new ArrayList<>();
    List<String> run = List.of(r.id(), text(r.model()), text(r.engine()), text(r.suite()), text(r.timestamp()),
        String.valueOf(r.simulated()), "", "");
    for (ResultProvenance.Fact fact : ResultProvenance.of(r)) {
      if (fact.value() != null) {
        rows.add(row(run, fact.key(), "", fact.value()));
      }
    }
    if (!(r.data().getValue(MetricKeys.RESULTS) instanceof JsonArray entries)) {
      return rows;
    }
    for (int i = 0; i < entries.size(); i++) {
      if (!(entries.getValue(i) instanceof JsonObject entry)) {
        continue;
      }
      BenchmarkMetrics b = BenchmarkMetrics.of(entry, i + 1);
      List<String> prefix = List.of(r.id(), text(r.model()), text(r.engine()), text(r.suite()), text(r.timestamp()),
          String.valueOf(r.simulated()), b.name(), b.runNumber() == null ? "" : b.runNumber().toString());
      if (b.passed() != null) {
        rows.add(row(prefix, "passed", "", b.passed().toString()));
      }
      if (b.repeats() != null) {
        rows.add(row(prefix, MetricKeys.REPEATS, "", b.repeats().toString()));
      }
      if (entry.getValue(MetricKeys.METRICS) instanceof JsonObject metrics) {
        walk(rows, prefix, "", metrics, 0, b);
      }
      if (entry.getValue(MetricKeys.REPEAT_RUNS) instanceof JsonArray runs) {
        for (int n = 0; n < runs.size(); n++) {
          if (runs.getValue(n) instanceof JsonObject runEntry) {
            BenchmarkMetrics single = BenchmarkMetrics.of(runEntry, i + 1);
            List<String> ofRun = new ArrayList<>(prefix.subList(0, 7));
            ofRun.add(single.runNumber() == null ? String.valueOf(n + 1) : single.runNumber().toString());
            if (runEntry.getValue(MetricKeys.METRICS) instanceof JsonObject metrics) {
              walk(rows, ofRun, "", metrics, 0, single);
            }
          }
        }
      }
    }
    return rows;
  }

  /** The rows of {@code node}'s figures; {@code b} gives their intervals, where it has them. */
  private static void walk(List<List<String>> rows, List<String> prefix, String path, JsonObject node, int depth,
      BenchmarkMetrics b) {
    for (String key : node.fieldNames()) {
      Object value = node.getValue(key);
      String metric = path + key;
      if (value instanceof JsonObject nested) {
        if (BenchmarkMetrics.isDistribution(nested)) {
          for (String stat : nested.fieldNames()) {
            rows.add(row(prefix, metric, stat, value(nested.getValue(stat)), b.interval(metric + "." + stat)));
          }
        } else if (depth < MAX_DEPTH) {
          walk(rows, prefix, metric + ".", nested, depth + 1, b);
        }
      } else if (value instanceof JsonArray steps) {
        if (depth == 0 && key.equals(MetricKeys.SWEEP)) {
          for (int i = 0; i < steps.size(); i++) {
            if (steps.getValue(i) instanceof JsonObject step) {
              walk(rows, prefix, metric + "." + (i + 1) + ".", step, depth + 1, b);
            }
          }
        }
      } else {
        rows.add(row(prefix, metric, "", value(value), b.interval(metric)));
      }
    }
  }

  private static List<String> row(List<String> prefix, String metric, String statistic, String value) {
    return row(prefix, metric, statistic, value, null);
  }

  private static List<String> row(List<String> prefix, String metric, String statistic, String value,
      Confidence interval) {
    List<String> row = new ArrayList<>(prefix);
    row.add(metric);
    row.add(statistic);
    row.add(value);
    String leaf = metric.substring(metric.lastIndexOf('.') + 1);
    row.add(MetricDefinitions.unit(leaf));
    boolean has = interval != null && interval.low() != null;
    row.add(has ? value(interval.low()) : "");
    row.add(has ? value(interval.high()) : "");
    row.add(interval == null ? "" : String.valueOf(interval.n()));
    return row;
  }

  /** Numbers in plain notation (no exponent), null as an empty field. */
  static String value(Object v) {
    if (v == null) {
      return "";
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      return Double.isFinite(d) ? BigDecimal.valueOf(d).stripTrailingZeros().toPlainString() : String.valueOf(d);
    }
    return v.toString();
  }

  private static String text(String s) {
    return s == null ? "" : s;
  }

  static void line(StringBuilder out, List<String> fields) {
    for (int i = 0; i < fields.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      out.append(field(fields.get(i)));
    }
    out.append("\r\n");
  }

  /** One RFC 4180 field: quoted, with quotes doubled, when it holds a comma, a quote or a line break. */
  static String field(String value) {
    if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\n') < 0 && value.indexOf('\r') < 0) {
      return value;
    }
    return '"' + value.replace("\"", "\"\"") + '"';
  }
}
