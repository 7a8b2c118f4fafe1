package dev.svc.bench.quality;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The objects of JSON-lines files, in order, each with where it came from for error messages. */
final class JsonLines {

  record Line(Path file, int number, JsonObject json) {
    String where() {
      return file + " line " + number;
    }

    /** The line read by {@code parse}; a line it refuses is an IOException that says where and why. */
    <T> T as(Function<JsonObject, T> parse) throws IOException {
      try {
        return parse.apply(json);
      } catch (BadMessage e) {
        throw new IOException(where() + ": " + e.getMessage());
      }
    }

    String string(String key) throws IOException {
      Object value = json.getValue(key);
      if (!(value instanceof String s)) {
        throw new IOException(where() + ": '" + key + "' is missing or not a string");
      }
      return s;
    }
  }

  private JsonLines() {
  }

  static List<Line> read(List<Path> files, int limit) throws IOException {
    List<Line> out = new ArrayList<>();
    for (Path file : files) {
      try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        String text;
        int number = 0;
        while ((text = reader.readLine()) != null) {
          number++;
          if (text.isBlank()) {
            continue;
          }
          try {
            out.add(new Line(file, number, new JsonObject(text)));
          } catch (DecodeException | ClassCastException e) {
            throw new IOException(file + " line " + number + " is not a JSON object");
          }
          if (limit > 0 && out.size() == limit) {
            return out;
          }
        }
      }
    }
    return out;
  }
}
