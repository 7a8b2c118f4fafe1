package dev.svc.core.protocol;

import io.vertx.core.json.JsonObject;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What the server publishes of one of its archives at {@code <path>/sha256} (protocol.md section 6):
 * its file name and the SHA-256 of its bytes. The server writes it with {@link #toJson}; the agent
 * reads it with {@link #parse} before it keeps a download.
 *
 * @param filename the archive's file name; null when the server names none
 * @param sha256 64 lowercase hex digits
 */
public record ArchiveDigest(String filename, String sha256) {

  private static final Pattern HEX_64 = Pattern.compile("[0-9a-f]{64}");

  public static ArchiveDigest parse(JsonObject body) {
    String digest = Fields.requireString(body, "sha256").toLowerCase(Locale.ROOT);
    if (!HEX_64.matcher(digest).matches()) {
      throw new BadMessage("Field 'sha256' must be 64 hexadecimal digits");
    }
    String filename = Fields.line("filename", Fields.optString(body, "filename", null), 255);
    if (filename != null && (filename.isBlank() || filename.contains("/") || filename.contains("\\")
        || filename.equals(".") || filename.equals(".."))) {
      throw new BadMessage("Field 'filename' must be a file name, not a path");
    }
    return new ArchiveDigest(filename, digest);
  }

  public JsonObject toJson() {
    return new JsonObject().put("filename", filename).put("sha256", sha256);
  }
}
