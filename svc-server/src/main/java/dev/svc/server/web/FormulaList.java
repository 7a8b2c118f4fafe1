package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The "Formulas" section of a result page: the definition of every metric the page shows, from
 * {@link MetricDefinitions}, then the terms those formulas use (statistics, window, N_out).
 */
final class FormulaList {

  private static final Set<String> USES_WINDOW = Set.of(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, MetricKeys.AVG_TPS,
      MetricKeys.REQUEST_THROUGHPUT, "total_token_throughput", "goodput");
  private static final Set<String> USES_N_OUT = Set.of(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, MetricKeys.AVG_TPS,
      MetricKeys.TPOT_MS, MetricKeys.TOTAL_TOKENS_GENERATED, "ntpot_ms", "total_token_throughput");

  private static final String UNDEFINED = "as reported in metrics.json; svc defines no formula for this key";

  private FormulaList() {
  }

  /** Entries {key, label, unit, formula, note, defined, metric}; metrics svc does not define are listed as such. */
  static List<Map<String, Object>> of(Collection<String> metricKeys, Collection<String> statistics) {
    return of(metricKeys, statistics, false);
  }

  /** The same, with the confidence interval's term when {@code intervals}: some figure shown has one. */
  static List<Map<String, Object>> of(Collection<String> metricKeys, Collection<String> statistics, boolean intervals) {
    List<Map<String, Object>> out = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (String key : metricKeys) {
      MetricDefinitions.Definition d = MetricDefinitions.of(key).orElse(null);
      if (d == null) {
        if (seen.add(key)) {
          out.add(entry(key, key, "", UNDEFINED, "", false, false));
        }
      } else if (seen.add(d.key())) {
        out.add(entry(d, true));
      }
    }
    for (String stat : statistics) {
      MetricDefinitions.term(stat).filter(t -> seen.add(t.key())).ifPresent(t -> out.add(entry(t, false)));
    }
    if (metricKeys.stream().anyMatch(USES_WINDOW::contains) && seen.add(MetricDefinitions.window().key())) {
      out.add(entry(MetricDefinitions.window(), false));
    }
    if (metricKeys.stream().anyMatch(USES_N_OUT::contains) && seen.add(MetricDefinitions.nOut().key())) {
      out.add(entry(MetricDefinitions.nOut(), false));
    }
    if (intervals) {
      out.add(entry(MetricDefinitions.confidence(), false));
    }
    return out;
  }

  private static Map<String, Object> entry(MetricDefinitions.Definition d, boolean metric) {
    return entry(d.key(), d.label(), d.unit(), d.formula(), d.note(), true, metric);
  }

  /** {@code metric}: a key of metrics.json (shown as code next to its label), not a term of the formulas. */
  private static Map<String, Object> entry(String key, String label, String unit, String formula, String note,
      boolean defined, boolean metric) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("key", key);
    m.put("label", label);
    m.put("unit", unit);
    m.put("formula", formula);
    m.put("note", note);
    m.put("defined", defined);
    m.put("metric", metric);
    return m;
  }
}
