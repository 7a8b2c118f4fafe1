package dev.svc.server.simulator;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The parameter count a model's path announces ("llama-3-8b" → 8 billion), for scaling made-up figures. */
final class ModelSize {

  /** Billions of parameters assumed when the path names none. */
  static final double DEFAULT_BILLIONS = 7;

  private static final Pattern BILLIONS = Pattern.compile("(?<![0-9.])(\\d+(?:\\.\\d+)?)[bB](?![a-zA-Z])");

  private ModelSize() {
  }

  static double billions(String modelPath) {
    if (modelPath != null) {
      Matcher m = BILLIONS.matcher(modelPath);
      double found = -1;
      while (m.find()) {
        found = Double.parseDouble(m.group(1));
      }
      if (found > 0 && found <= 2000) {
        return found;
      }
    }
    return DEFAULT_BILLIONS;
  }

  /** The last segment of the path: the model's name. */
  static String name(String modelPath) {
    if (modelPath == null || modelPath.isBlank()) {
      return "model";
    }
    String trimmed = modelPath.replaceAll("[/\\\\]+$", "");
    int slash = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
    String name = slash >= 0 ? trimmed.substring(slash + 1) : trimmed;
    return name.isEmpty() ? "model" : name;
  }
}
