package dev.svc.server.web;

import dev.svc.server.models.CatalogModel;
import dev.svc.server.legacy.HeadlineMetric;
import dev.svc.server.store.StoredAgent;
import dev.svc.server.store.StoredResult;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Turns stored rows into the plain maps the templates show (never token hashes). */
final class PageRows {

  /** The statuses of a real agent that count as online (test agents always are). */
  static final List<String> ONLINE_STATUSES = List.of("online", "idle", "running", "error");
  private static final Set<String> ONLINE = Set.copyOf(ONLINE_STATUSES);

  private PageRows() {
  }

  static boolean isTestAgent(StoredAgent row) {
    return row.isTestAgent();
  }

  /** Test agents always count as online; real ones by their recorded status. */
  static boolean isOnline(StoredAgent row) {
    return isTestAgent(row) || (row.status() != null && ONLINE.contains(row.status()));
  }

  static Map<String, Object> agent(StoredAgent row, boolean running) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", row.id());
    out.put("name", row.name());
    out.put("hostname", row.hostname());
    out.put("status", running ? "running" : isTestAgent(row) ? "online" : row.status());
    out.put("is_test", isTestAgent(row));
    out.put("last_heartbeat_at", row.lastHeartbeatAt());
    out.put("gpu", gpu(row));
    out.put("arch", row.cpuArch());
    return out;
  }

  /** The label/value pairs of an agent's hardware and of its last heartbeat. */
  static List<Map<String, Object>> hardware(StoredAgent row) {
    List<Map<String, Object>> out = new ArrayList<>();
    pair(out, "GPU", gpu(row));
    pair(out, "CPU", row.cpuInfo());
    pair(out, "CPU cores", cores(row.hardwareDetailsObject()));
    pair(out, "Architecture", row.cpuArch());
    pair(out, "RAM (GB)", row.ramGb());
    pair(out, "Environment", row.environmentType());
    pair(out, "Hostname", row.hostname());
    pair(out, "Agent version", row.agentVersion());
    pair(out, "Registered", row.registeredAt());
    return out;
  }

  /** "8 cores, 16 threads" from the registration's hardware details; null when it sent none. */
  private static String cores(JsonObject details) {
    if (details == null || !(details.getValue("cpu_cores") instanceof Number cores)) {
      return null;
    }
    return cores.intValue() + " cores" + (details.getValue("cpu_threads") instanceof Number threads
        ? ", " + threads.intValue() + " threads" : "");
  }

  static List<Map<String, Object>> heartbeat(StoredAgent row) {
    List<Map<String, Object>> out = new ArrayList<>();
    pair(out, "Status", row.status());
    pair(out, "Last heartbeat", row.lastHeartbeatAt());
    pair(out, "Current task", row.currentTask());
    pair(out, "GPU utilization (%)", row.gpuUtilizationPct());
    pair(out, "GPU memory used (GB)", row.gpuMemoryUsedGb());
    pair(out, "Storage free (GB)", row.storageGbFree());
    pair(out, "Uptime (s)", row.uptimeS());
    return out;
  }

  /** The Storage card: free space from the last heartbeat ("" when none reported it) and when it was seen. */
  static Map<String, Object> storage(StoredAgent row) {
    Map<String, Object> out = new LinkedHashMap<>();
    Object free = row.storageGbFree();
    out.put("free", free instanceof Number n ? String.format(Locale.ROOT, "%.1f GB", n.doubleValue()) : "");
    out.put("seen_at", row.lastHeartbeatAt() == null ? "" : row.lastHeartbeatAt());
    return out;
  }

  /** A model of the catalog: id, path, formats, human-readable size and where it was listed. */
  static Map<String, Object> model(CatalogModel m) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("model_id", m.modelId());
    out.put("path", m.path());
    out.put("formats", m.formats());
    Long size = m.sizeBytes();
    out.put("size", size == null ? "" : humanSize(size));
    out.put("size_bytes", size == null ? "" : String.valueOf(size));
    out.put("source", m.source());
    return out;
  }

  /** Bytes in decimal units (kB, MB, GB, TB), one decimal from kB on: 16000000000 → "16.0 GB". */
  static String humanSize(long bytes) {
    if (bytes < 1000) {
      return bytes + " B";
    }
    String[] units = {"kB", "MB", "GB", "TB", "PB", "EB"};
    double value = bytes;
    int unit = -1;
    while (value >= 999.95 && unit < units.length - 1) {
      value /= 1000;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  static Map<String, Object> result(StoredResult r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", r.id());
    out.put("model", r.model());
    out.put("engine", r.engine());
    out.put("suite", r.suiteName());
    out.put("timestamp", r.timestamp());
    out.put("headline", listHeadline(r.summaryObject())); // a list row: the summary, never the whole document
    return out;
  }

  private static String listHeadline(JsonObject doc) {
    if (doc == null) {
      return "";
    }
    try {
      return headline(doc);
    } catch (ClassCastException e) { // a metrics.json whose parts have the wrong types has no headline
      return "";
    }
  }

  /** The throughput headline of a result, or the first benchmark's accuracy for quality-only results. */
  static String headline(JsonObject data) {
    return HeadlineMetric.of(data).or(() -> accuracy(data)).orElse("");
  }

  private static Optional<String> accuracy(JsonObject data) {
    if (data.getValue("results") instanceof JsonArray results && !results.isEmpty()
        && results.getValue(0) instanceof JsonObject first && first.getValue("metrics") instanceof JsonObject metrics
        && metrics.getValue("accuracy") instanceof Number value) {
      return Optional.of("accuracy " + DisplayNumbers.format(value.doubleValue()));
    }
    return Optional.empty();
  }

  private static String gpu(StoredAgent row) {
    String info = row.gpuInfo();
    Object count = row.gpuCount();
    if (info == null || info.isBlank()) {
      return "";
    }
    return count instanceof Number n && n.intValue() > 1 ? n.intValue() + " × " + info : info;
  }

  private static void pair(List<Map<String, Object>> out, String label, Object value) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("label", label);
    p.put("value", value == null ? "" : String.valueOf(value));
    out.add(p);
  }
}
