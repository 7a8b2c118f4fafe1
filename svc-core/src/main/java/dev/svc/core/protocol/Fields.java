package dev.svc.core.protocol;

import dev.svc.core.TextRule;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed reads of a protocol message's fields, each failing with the protocol's sentence
 * ({@link BadMessage}): what every parse of a wire type, and every API body, is read with.
 */
public final class Fields {

  private Fields() {
  }

  public static String optString(JsonObject json, String field, String fallback) {
    Object value = json.getValue(field);
    if (value == null) {
      return fallback;
    }
    if (!(value instanceof String s)) {
      throw new BadMessage("Field '" + field + "' must be a string");
    }
    if (s.indexOf('\0') >= 0) {
      throw new BadMessage("Field '" + field + "' must not contain NUL characters");
    }
    return s;
  }

  /** A non-blank string, trimmed. */
  public static String requireString(JsonObject json, String field) {
    String value = optString(json, field, null);
    if (value == null || value.isBlank()) {
      throw new BadMessage("Field '" + field + "' is required");
    }
    return value.trim();
  }

  /** A whole number (or a string of digits) from {@code min} to {@code max}, or {@code fallback} when absent. */
  public static Integer optInt(JsonObject json, String field, Integer fallback, int min, int max) {
    Long value = optLong(json, field, null, min, max);
    return value == null ? fallback : Integer.valueOf(value.intValue());
  }

  /** A whole number from {@code min} to {@code max} (as {@link #optInt}, wider), or {@code fallback} when absent. */
  public static Long optLong(JsonObject json, String field, Long fallback, long min, long max) {
    Object value = json.getValue(field);
    if (value == null) {
      return fallback;
    }
    long l;
    if (value instanceof Integer || value instanceof Long) {
      l = ((Number) value).longValue();
    } else if (value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
        && Math.abs(n.doubleValue()) < 0x1p63) {
      l = n.longValue();
    } else if (value instanceof String s && s.trim().matches("-?\\d{1,18}")) {
      l = Long.parseLong(s.trim());
    } else {
      throw new BadMessage("Field '" + field + "' must be an integer");
    }
    if (l < min || l > max) {
      throw new BadMessage("Field '" + field + "' must be between " + min + " and " + max);
    }
    return l;
  }

  /** A boolean (or the string {@code "true"} or {@code "false"}), or {@code fallback} when absent. */
  public static boolean optBoolean(JsonObject json, String field, boolean fallback) {
    Object value = json.getValue(field);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Boolean b) {
      return b;
    }
    if ("true".equals(value) || "false".equals(value)) {
      return Boolean.parseBoolean((String) value);
    }
    throw new BadMessage("Field '" + field + "' must be true or false");
  }

  /** A JSON object, or null when absent. */
  public static JsonObject optObject(JsonObject json, String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonObject object)) {
      throw new BadMessage("Field '" + field + "' must be an object");
    }
    return object;
  }

  /** A finite number (or a string holding one), or {@code fallback} when absent. */
  public static Double optNumber(JsonObject json, String field, Double fallback) {
    Object value = json.getValue(field);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Number n && Double.isFinite(n.doubleValue())) {
      return n.doubleValue();
    }
    if (value instanceof String s) {
      try {
        double d = Double.parseDouble(s.trim());
        if (Double.isFinite(d)) {
          return d;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    throw new BadMessage("Field '" + field + "' must be a number");
  }

  /** As {@link #optNumber}, also from 0 to {@code max}; null when absent. */
  public static Double boundedNumber(JsonObject json, String field, double max) {
    Double value = optNumber(json, field, null);
    if (value != null && (value < 0 || value > max)) {
      throw new BadMessage("Field '" + field + "' must be between 0 and "
          + (max == Math.rint(max) && max < 1e6 ? String.valueOf((long) max) : String.valueOf(max)));
    }
    return value;
  }

  public static JsonArray optArray(JsonObject json, String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonArray array)) {
      throw new BadMessage("Field '" + field + "' must be an array");
    }
    return array;
  }

  /** A list of strings, or null when absent. */
  public static List<String> optStringList(JsonObject json, String field) {
    JsonArray array = optArray(json, field);
    if (array == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (Object o : array) {
      if (!(o instanceof String s)) {
        throw new BadMessage("Field '" + field + "' must be a list of strings");
      }
      out.add(s);
    }
    return out;
  }

  /** Writes the field only when it has a value: a message leaves out what its sender does not know. */
  public static void putIfKnown(JsonObject json, String field, Object value) {
    if (value != null) {
      json.put(field, value);
    }
  }

  /** {@code value} when it is at most {@code max} characters (or null). */
  public static String limit(String field, String value, int max) {
    if (value != null && value.length() > max) {
      throw new BadMessage("Field '" + field + "' must be at most " + max + " characters");
    }
    return value;
  }

  /** One line of text people read back: at most {@code max} characters, held to {@link TextRule}; null passes. */
  public static String line(String field, String value, int max) {
    return text(field, value, max, false);
  }

  /** Each entry of a list of one-line values (tags, capabilities); null passes. */
  public static List<String> lines(String field, List<String> values, int maxEach) {
    if (values != null) {
      values.forEach(v -> line(field, v, maxEach));
    }
    return values;
  }

  /** As {@link #line}, for text that may span lines. */
  public static String text(String field, String value, int max, boolean multiLine) {
    if (limit(field, value, max) == null) {
      return null;
    }
    String problem = TextRule.fieldProblem(field, value, multiLine);
    if (problem != null) {
      throw new BadMessage(problem);
    }
    return value;
  }
}
