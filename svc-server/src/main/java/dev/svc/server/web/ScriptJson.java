package dev.svc.server.web;

import io.vertx.core.json.JsonObject;

/**
 * JSON for a {@code <script type="application/json">} block. The browser does not decode HTML
 * entities inside script elements, so autoescaping would corrupt the JSON; instead every character
 * that could end the element or open markup is written as a JSON unicode escape, and the template
 * prints the result with {@code | raw}.
 */
final class ScriptJson {

  private ScriptJson() {
  }

  static String encode(JsonObject value) {
    String json = value.encode();
    StringBuilder out = new StringBuilder(json.length() + 16);
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      switch (c) {
        case '<' -> out.append("\\u003c");
        case '>' -> out.append("\\u003e");
        case '&' -> out.append("\\u0026");
        case '\u2028' -> out.append("\\u2028");
        case '\u2029' -> out.append("\\u2029");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
