package dev.svc.core.protocol;

import dev.svc.core.CpuArch;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A registration (protocol.md 2.1): what an agent says of itself. The agent and the fleet simulator
 * write it with {@link #toJson}; the server reads it with {@link #parse}, whole: every text held to
 * the text rule and its length, every number within range, or the registration is refused with one
 * sentence. Old agents send {@code kitt_version} for {@code agent_version}, may send
 * {@code hardware_details} as a string holding JSON, and leave out what they like but the name and
 * hostname; unknown keys are ignored.
 *
 * @param port 8090 when not given; 0 for the server's test agents
 * @param cpuArch normalized ({@code amd64}, {@code arm64}), from {@code hardware_details} when not given at the top
 * @param capabilities engines whose images the agent holds; null when not given
 * @param hardwareDetails the agent's hardware object; null when not given
 */
public record Registration(String name, String hostname, int port, String gpuInfo, Integer gpuCount, String cpuInfo,
    String cpuArch, Integer ramGb, String environmentType, String fingerprint, String agentVersion,
    List<String> capabilities, JsonObject hardwareDetails) {

  public static final int DEFAULT_PORT = 8090;
  public static final int MAX_CAPABILITIES = 64;
  public static final int MAX_HARDWARE_JSON = 16_384;

  public Registration {
    capabilities = capabilities == null ? null : List.copyOf(capabilities);
    hardwareDetails = hardwareDetails == null ? null : hardwareDetails.copy();
  }

  /** An agent known by name only, before it registers (a provisioned agent). */
  public static Registration named(String name) {
    return new Registration(name, name, DEFAULT_PORT, null, null, null, null, null, null, null, null, null, null);
  }

  public static Registration parse(JsonObject body) {
    JsonObject hardware = hardwareDetails(body);
    String version = Fields.optString(body, "agent_version", null);
    if (version == null) {
      version = Fields.optString(body, "kitt_version", null);
    }
    List<String> capabilities = Fields.lines("capabilities", Fields.optStringList(body, "capabilities"), 64);
    if (capabilities != null && capabilities.size() > MAX_CAPABILITIES) {
      throw new BadMessage("Field 'capabilities' may list at most " + MAX_CAPABILITIES + " engines");
    }
    String cpuArch = body.getValue("cpu_arch") != null ? Fields.optString(body, "cpu_arch", null)
        : hardware == null || !(hardware.getValue("cpu_arch") instanceof String arch) ? null : arch;
    return new Registration(
        Fields.line("name", Fields.requireString(body, "name"), 255),
        Fields.line("hostname", Fields.requireString(body, "hostname"), 255),
        Fields.optInt(body, "port", DEFAULT_PORT, 0, 65535),
        Fields.line("gpu_info", Fields.optString(body, "gpu_info", null), 1024),
        roundedInt(body, "gpu_count", 4096),
        Fields.line("cpu_info", Fields.optString(body, "cpu_info", null), 1024),
        CpuArch.normalize(Fields.line("cpu_arch", cpuArch, 32)),
        roundedInt(body, "ram_gb", 1_000_000),
        Fields.line("environment_type", Fields.optString(body, "environment_type", null), 64),
        Fields.line("fingerprint", Fields.optString(body, "fingerprint", null), 2048),
        Fields.line("agent_version", version, 64),
        capabilities,
        hardware);
  }

  /** The registration as sent; the version under both its names, so that old servers read it too. */
  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("name", name).put("hostname", hostname).put("port", port);
    Fields.putIfKnown(json, "gpu_info", gpuInfo);
    Fields.putIfKnown(json, "gpu_count", gpuCount);
    Fields.putIfKnown(json, "cpu_info", cpuInfo);
    Fields.putIfKnown(json, "cpu_arch", cpuArch);
    Fields.putIfKnown(json, "ram_gb", ramGb);
    Fields.putIfKnown(json, "environment_type", environmentType);
    Fields.putIfKnown(json, "fingerprint", fingerprint);
    Fields.putIfKnown(json, "agent_version", agentVersion);
    Fields.putIfKnown(json, "kitt_version", agentVersion);
    if (capabilities != null) {
      json.put("capabilities", new JsonArray(List.copyOf(capabilities)));
    }
    if (hardwareDetails != null) {
      json.put("hardware_details", hardwareDetails.copy());
    }
    return json;
  }

  /**
   * The answer to a registration (201): the agent's canonical id and its heartbeat interval.
   *
   * @param heartbeatIntervalS null when the server did not say (the agent keeps its own)
   */
  public record Answer(String agentId, Integer heartbeatIntervalS) {

    public static Answer parse(JsonObject body) {
      String id = Fields.line("agent_id", Fields.requireString(body, "agent_id"), 255);
      Double interval = Fields.boundedNumber(body, "heartbeat_interval_s", 86_400);
      return new Answer(id, interval == null ? null : (int) Math.round(interval));
    }

    public JsonObject toJson() {
      return new JsonObject().put("agent_id", agentId).put("heartbeat_interval_s", heartbeatIntervalS);
    }
  }

  /** The hardware object, its string values held to the text rule (the dashboard shows them) and its size bounded. */
  private static JsonObject hardwareDetails(JsonObject body) {
    JsonObject hardware = hardwareObject(body.getValue("hardware_details"));
    if (hardware != null) {
      if (hardware.encode().length() > MAX_HARDWARE_JSON) {
        throw new BadMessage("Field 'hardware_details' must be at most " + MAX_HARDWARE_JSON + " characters of JSON");
      }
      for (String key : hardware.fieldNames()) {
        Fields.line("hardware_details", key, 64);
        if (hardware.getValue(key) instanceof String value) {
          Fields.line("hardware_details." + key, value, 1024);
        }
      }
    }
    return hardware;
  }

  private static JsonObject hardwareObject(Object raw) {
    if (raw == null) {
      return null;
    }
    if (raw instanceof JsonObject object) {
      return object;
    }
    if (raw instanceof String text) {
      if (text.isBlank()) {
        return null;
      }
      try {
        return new JsonObject(text.trim());
      } catch (DecodeException | ClassCastException e) {
        // refused below
      }
    }
    throw new BadMessage("Field 'hardware_details' must be a JSON object or a string containing one");
  }

  private static Integer roundedInt(JsonObject body, String field, int max) {
    Double d = Fields.optNumber(body, field, null);
    if (d == null) {
      return null;
    }
    if (d < 0 || d > max) {
      throw new BadMessage("Field '" + field + "' must be between 0 and " + max);
    }
    return (int) Math.round(d);
  }
}
