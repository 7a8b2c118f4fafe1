package dev.svc.server.web;

import dev.svc.server.store.StoredAgent;
import dev.svc.core.CpuArch;
import dev.svc.engines.Compatibility;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.ModelFormat;
import dev.svc.engines.Verdict;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the run forms offer: agents with their architecture, engines with their formats and platform
 * verdict, and the engine × format verdicts the forms' scripts look up. Every verdict comes from
 * {@link Compatibility}, the rules the API applies when it accepts or refuses a run.
 */
final class EngineChoices {

  private final EngineCatalog engines;

  EngineChoices(EngineCatalog engines) {
    this.engines = engines;
  }

  /** The agents to choose from: {@code id, name, arch (amd64|arm64 as stored), arch_label, is_test}. */
  static List<Map<String, Object>> agents(List<StoredAgent> rows) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (StoredAgent row : rows) {
      Map<String, Object> agent = new LinkedHashMap<>();
      String arch = row.cpuArch();
      agent.put("id", row.id());
      agent.put("name", row.name());
      agent.put("arch", arch == null ? "" : arch);
      agent.put("arch_label", CpuArch.parse(arch).map(CpuArch::displayName).orElse(arch == null ? "unknown" : arch));
      agent.put("is_test", row.isTestAgent());
      out.add(agent);
    }
    return out;
  }

  /** Every engine with its formats and whether it runs on {@code cpuArch} (the reason when not). */
  List<Map<String, Object>> forArch(String cpuArch) {
    CpuArch arch = CpuArch.parse(cpuArch).orElse(null);
    List<Map<String, Object>> out = new ArrayList<>();
    for (EngineSpec engine : engines.all()) {
      Verdict platform = Compatibility.checkPlatform(engine, arch);
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("name", engine.name());
      e.put("formats", engine.formatNames());
      e.put("compatible", platform.compatible());
      e.put("reason", platform.reason());
      out.add(e);
    }
    return out;
  }

  /** {@code {"<engine>": {"<format>": {"compatible": bool, "reason": text|null}}}} for every engine and format. */
  JsonObject formatVerdicts() {
    JsonObject out = new JsonObject();
    for (EngineSpec engine : engines.all()) {
      JsonObject byFormat = new JsonObject();
      for (ModelFormat format : ModelFormat.values()) {
        Verdict v = Compatibility.checkFormat(engine, format);
        byFormat.put(format.wireName(), new JsonObject().put("compatible", v.compatible()).put("reason", v.reason()));
      }
      out.put(engine.name(), byFormat);
    }
    return out;
  }
}
