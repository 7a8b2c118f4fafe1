package dev.svc.agent.config;

import dev.svc.core.UserYaml;
import dev.svc.core.domain.AgentSettings;
import dev.svc.core.home.PrivateFiles;
import dev.svc.core.home.SvcHome;
import io.netty.util.NetUtil;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code ~/.svc/agent.yaml}, written by {@code svc-agent init} and read by every other command.
 * The keys of the mission ({@code server}, {@code token}, {@code name}, {@code port}, model
 * storage paths, {@code tls.cert/key/ca}) plus {@code bind}, the address of the agent's own API
 * (loopback unless the operator opens it), {@code ca_fingerprint}, the server CA pinned at init,
 * and two tool paths whose real tools are the default ({@code nvidia_smi}, {@code mount}):
 * hosts without a GPU or an NFS client, and tests, point them elsewhere.
 *
 * <p>{@code server} names the nodes of one server (a cluster sharing one database and one CA), in
 * the order the agent tries them: one URL is written as a plain string, as agents before clusters
 * wrote and read it; several as a YAML list. A comma-separated string is read as a list too.
 */
public record AgentConfig(List<String> servers, String token, String name, int port, String bind, String modelStorageDir,
    String shareSource, String shareMount, String caFingerprint, Tls tls, String nvidiaSmi, String mount) {

  public static final int DEFAULT_PORT = 8090;
  /** The server never connects to the agent (all its traffic is agent to server) and the CLI is local. */
  public static final String DEFAULT_BIND = "127.0.0.1";

  private static final Pattern HOST_NAME = Pattern.compile(
      "(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");

  /** Paths of the client certificate, its private key and the CA certificate (PEM); null when TLS is off. */
  public record Tls(String cert, String key, String ca) {
  }

  /** The same with {@code server} as {@code --server} takes it: one URL, or several separated by commas. */
  public AgentConfig(String server, String token, String name, int port, String bind, String modelStorageDir,
      String shareSource, String shareMount, String caFingerprint, Tls tls, String nvidiaSmi, String mount) {
    this(splitServers(server), token, name, port, bind, modelStorageDir, shareSource, shareMount, caFingerprint, tls,
        nvidiaSmi, mount);
  }

  public AgentConfig {
    servers = servers == null ? List.of() : servers.stream().map(AgentConfig::withoutTrailingSlash).toList();
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("'server' must name at least one http:// or https:// URL");
    }
    token = token == null ? "" : token;
    bind = blankToNull(bind) == null ? DEFAULT_BIND : bind.strip();
    if (!isBindAddress(bind)) {
      throw new IllegalArgumentException(bindProblem(bind));
    }
    modelStorageDir = blankToNull(modelStorageDir) == null ? "~/.svc/models" : modelStorageDir;
    shareSource = shareSource == null ? "" : shareSource;
    shareMount = shareMount == null ? "" : shareMount;
    nvidiaSmi = blankToNull(nvidiaSmi) == null ? "nvidia-smi" : nvidiaSmi;
    mount = blankToNull(mount) == null ? "mount" : mount;
  }

  /** Whether {@code value} is an IP literal or a host name, without looking anything up. */
  public static boolean isBindAddress(String value) {
    if (value == null || value.isBlank()) {
      return false;
    }
    if (NetUtil.isValidIpV4Address(value) || (NetUtil.isValidIpV6Address(value) && !value.startsWith("["))) {
      return true;
    }
    // all digits and dots but no IPv4 address (999.1.1.1): a typo, not a host name
    return !value.matches("[0-9.]+") && HOST_NAME.matcher(value).matches();
  }

  /** Why {@code value} cannot be a bind address, in one sentence. */
  public static String bindProblem(String value) {
    return "'bind' must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name, not '" + value + "'";
  }

  /** Whether the API listens on every interface rather than one address. */
  public boolean bindsEverywhere() {
    byte[] address = NetUtil.createByteArrayFromIpAddressString(bind);
    return address != null && Arrays.equals(address, new byte[address.length]);
  }

  /** The servers as {@code --server} takes them: one URL, or several separated by commas. */
  public String server() {
    return String.join(",", servers);
  }

  /** The servers' base URLs without a trailing slash, in the order the agent tries them. */
  public List<URI> serverUris() {
    return servers.stream().map(URI::create).toList();
  }

  /** Whether the agent speaks HTTPS to its servers (all of them: a cluster has one scheme). */
  public boolean https() {
    return servers.get(0).regionMatches(true, 0, "https://", 0, "https://".length());
  }

  /** The URLs of a comma-separated list, trimmed; blank entries (a trailing comma) are left out. */
  public static List<String> splitServers(String servers) {
    List<String> out = new ArrayList<>();
    if (servers != null) {
      for (String part : servers.split(",")) {
        if (!part.isBlank()) {
          out.add(part.strip());
        }
      }
    }
    return out;
  }

  /**
   * Why {@code servers} cannot be an agent's servers, in one sentence, or null when they can: each
   * an http:// or https:// URL, none twice, all of one scheme.
   */
  public static String serversProblem(List<String> servers) {
    if (servers.isEmpty()) {
      return "'server' must name at least one http:// or https:// URL";
    }
    Set<String> seen = new HashSet<>();
    for (String server : servers) {
      String lower = withoutTrailingSlash(server).toLowerCase(Locale.ROOT);
      if (!(lower.startsWith("https://") || lower.startsWith("http://"))) {
        return "'server' must be an http:// or https:// URL, not '" + server + "'";
      }
      if (!seen.add(lower)) {
        return "'server' names " + withoutTrailingSlash(server) + " twice";
      }
    }
    long https = seen.stream().filter(s -> s.startsWith("https://")).count();
    if (https != 0 && https != seen.size()) {
      return "'server' mixes http:// and https:// URLs: the nodes of one server share one scheme and one CA";
    }
    return null;
  }

  private static String withoutTrailingSlash(String server) {
    String s = server.strip();
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  public Path modelStoragePath() {
    return SvcHome.expand(modelStorageDir);
  }

  /**
   * The value of a per-agent setting: the server's (every heartbeat answer carries every key, its
   * defaults included), except that a blank value or the server's default leaves what agent.yaml
   * configured ({@code configured}, e.g. init's --model-dir) in force.
   */
  public static String effective(JsonObject settings, String key, String configured) {
    Object value = settings == null ? null : settings.getValue(key);
    String text = value == null ? "" : String.valueOf(value);
    boolean serverDefault = text.equals(AgentSettings.defaults().get(key));
    boolean hasConfigured = configured != null && !configured.isBlank();
    return text.isBlank() || (serverDefault && hasConfigured) ? (configured == null ? "" : configured) : text;
  }

  public AgentConfig withName(String newName) {
    return new AgentConfig(servers, token, newName, port, bind, modelStorageDir, shareSource, shareMount, caFingerprint, tls,
        nvidiaSmi, mount);
  }

  /** Reads and checks the file; a missing or malformed file is an IllegalArgumentException saying what to do. */
  public static AgentConfig load(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("No agent configuration at " + file + ": run svc-agent init first");
    }
    Object parsed;
    try {
      parsed = UserYaml.load(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read " + file, e);
    } catch (UserYaml.Invalid e) {
      throw new IllegalArgumentException(file + " is invalid: " + e.getMessage());
    }
    if (!(parsed instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException(file + " must be a YAML mapping");
    }
    List<String> servers = servers(map.get("server"), file);
    String serversProblem = serversProblem(servers);
    if (serversProblem != null) {
      throw new IllegalArgumentException(file + ": " + serversProblem);
    }
    String name = string(map, "name", file);
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(file + ": 'name' is required");
    }
    Object port = map.get("port");
    int portNumber = port == null ? DEFAULT_PORT : port instanceof Integer i ? i : -1;
    if (portNumber < 1 || portNumber > 65535) {
      throw new IllegalArgumentException(file + ": 'port' must be a number from 1 to 65535");
    }
    String bind = string(map, "bind", file);
    if (bind != null && !isBindAddress(bind.strip())) {
      throw new IllegalArgumentException(file + ": " + bindProblem(bind));
    }
    Tls tls = null;
    if (map.get("tls") instanceof Map<?, ?> t) {
      tls = new Tls(string(t, "cert", file), string(t, "key", file), string(t, "ca", file));
    } else if (map.get("tls") != null) {
      throw new IllegalArgumentException(file + ": 'tls' must be a mapping with cert, key and ca");
    }
    return new AgentConfig(servers, string(map, "token", file), name, portNumber, bind, string(map, "model_storage_dir", file),
        string(map, "model_share_source", file), string(map, "model_share_mount", file), string(map, "ca_fingerprint", file),
        tls, string(map, "nvidia_smi", file), string(map, "mount", file));
  }

  /** Writes the file owner-only (it holds the token), atomically. */
  public void write(Path file) {
    Map<String, Object> out = new LinkedHashMap<>();
    // one URL stays a plain string, so that an agent from before clusters still reads the file
    out.put("server", servers.size() == 1 ? servers.get(0) : new ArrayList<>(servers));
    out.put("token", token);
    out.put("name", name);
    out.put("port", port);
    out.put("bind", bind);
    out.put("model_storage_dir", modelStorageDir);
    out.put("model_share_source", shareSource);
    out.put("model_share_mount", shareMount);
    if (caFingerprint != null) {
      out.put("ca_fingerprint", caFingerprint);
    }
    if (tls != null) {
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("cert", tls.cert());
      t.put("key", tls.key());
      t.put("ca", tls.ca());
      out.put("tls", t);
    }
    if (!"nvidia-smi".equals(nvidiaSmi)) {
      out.put("nvidia_smi", nvidiaSmi);
    }
    if (!"mount".equals(mount)) {
      out.put("mount", mount);
    }
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    String text = "# svc-agent configuration, written by svc-agent init\n" + new Yaml(options).dump(out);
    PrivateFiles.write(file, text);
  }

  /** The {@code server} value: a string (one URL, or several separated by commas) or a list of strings. */
  private static List<String> servers(Object value, Path file) {
    if (value instanceof String text) {
      return splitServers(text);
    }
    if (value instanceof List<?> list) {
      List<String> out = new ArrayList<>();
      for (Object item : list) {
        if (!(item instanceof String text) || text.isBlank()) {
          throw new IllegalArgumentException(file + ": 'server' must be a URL or a list of URLs");
        }
        out.add(text.strip());
      }
      return out;
    }
    throw new IllegalArgumentException(file + ": 'server' must be an http:// or https:// URL, or a list of them");
  }

  private static String string(Map<?, ?> map, String key, Path file) {
    Object value = map.get(key);
    if (value == null) {
      return null;
    }
    if (value instanceof String || value instanceof Number || value instanceof Boolean) {
      return value.toString();
    }
    throw new IllegalArgumentException(file + ": '" + key + "' must be a string");
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
