package dev.svc.server.web;

import dev.svc.core.domain.AgentSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of an agent's Settings card: label, input kind, hint and current value of each of the
 * six settings. Storage and NFS settings are left out for test agents, which have no storage.
 */
final class AgentSettingsForm {

  private AgentSettingsForm() {
  }

  static List<Map<String, Object>> fields(Map<String, String> settings, boolean testAgent) {
    List<Map<String, Object>> out = new ArrayList<>();
    if (!testAgent) {
      out.add(field(settings, AgentSettings.MODEL_STORAGE_DIR, "Model storage directory", "text",
          "Local directory for model copies (absolute path).", "~/.svc/models"));
      out.add(field(settings, AgentSettings.MODEL_SHARE_SOURCE, "NFS share source", "text",
          "Form host:/path; empty when models are not on a share.", "nfs-server:/exports/models"));
      out.add(field(settings, AgentSettings.MODEL_SHARE_MOUNT, "NFS mount point", "text",
          "Where the share is mounted on the agent (absolute path).", "/mnt/models"));
      out.add(field(settings, AgentSettings.AUTO_CLEANUP, "Delete local model copies after benchmarks", "checkbox",
          "", ""));
    }
    out.add(field(settings, AgentSettings.HEARTBEAT_INTERVAL_S, "Heartbeat interval (s)", "integer",
        "Whole seconds from " + AgentSettings.MIN_HEARTBEAT_S + " to " + AgentSettings.MAX_HEARTBEAT_S + ".",
        String.valueOf(AgentSettings.DEFAULT_HEARTBEAT_S)));
    out.add(field(settings, AgentSettings.KITT_IMAGE, "Benchmark container image", "text",
        "Tag of a locally built image, used in addition to the default.", "registry/image:tag"));
    return out;
  }

  private static Map<String, Object> field(Map<String, String> settings, String key, String label, String kind,
      String hint, String placeholder) {
    String value = settings.getOrDefault(key, "");
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("key", key);
    f.put("label", label);
    f.put("kind", kind);
    f.put("hint", hint);
    f.put("placeholder", placeholder);
    f.put("value", value == null ? "" : value);
    f.put("checked", "true".equals(value));
    if (key.equals(AgentSettings.HEARTBEAT_INTERVAL_S)) {
      f.put("min", AgentSettings.MIN_HEARTBEAT_S);
      f.put("max", AgentSettings.MAX_HEARTBEAT_S);
    }
    return f;
  }
}
