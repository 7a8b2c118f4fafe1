package dev.svc.server.http;

/**
 * What a cleanup may delete on an agent: cached models inside its model storage directory and
 * nothing else. A path is either relative to that directory ("llama-3-8b", "org/model") or
 * written under it ("~/.svc/models/llama-3-8b" when the directory is "~/.svc/models"); "/", the
 * directory itself, '.', '..' and empty segments, and absolute paths elsewhere are refused. The
 * empty path keeps its protocol meaning: every cached model in the directory.
 */
final class ModelStoragePaths {

  private ModelStoragePaths() {
  }

  /** The path to send in cleanup_storage; 400 naming the rule when it may not be cleaned up. */
  static String cleanupTarget(String field, String requested, String storageDir) {
    String path = QuickTestRoutes.checkPath(field, requested, false);
    if (path.isEmpty()) {
      return "";
    }
    String dir = trimSlashes(storageDir == null ? "" : storageDir.trim());
    boolean absolute = path.startsWith("/") || path.startsWith("~");
    String inside;
    if (absolute) {
      if (dir.isEmpty() || !path.startsWith(dir + "/")) {
        throw ApiError.badRequest("Field '" + field + "' must name a model inside the agent's model storage directory"
            + " (" + (dir.isEmpty() ? "not set" : dir) + "), relative to it or under it");
      }
      inside = path.substring(dir.length() + 1);
    } else {
      inside = path;
    }
    String relative = trimTrailingSlash(inside);
    if (relative.isEmpty()) {
      throw ApiError.badRequest("Field '" + field + "' names the model storage directory itself; send an empty "
          + field + " to delete every cached model");
    }
    if (relative.indexOf('\\') >= 0) {
      throw ApiError.badRequest("Field '" + field + "' must not contain backslashes");
    }
    for (String segment : relative.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw ApiError.badRequest("Field '" + field + "' must not contain empty, '.' or '..' segments");
      }
    }
    return absolute ? dir + "/" + relative : relative;
  }

  private static String trimTrailingSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  private static String trimSlashes(String s) {
    String out = s;
    while (out.length() > 1 && out.endsWith("/")) {
      out = out.substring(0, out.length() - 1);
    }
    return out;
  }
}
