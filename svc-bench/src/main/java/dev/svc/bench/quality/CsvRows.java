package dev.svc.bench.quality;

import java.util.ArrayList;
import java.util.List;

/** RFC 4180 rows: fields separated by commas, quoted fields may hold commas, doubled quotes and newlines. */
final class CsvRows {

  private CsvRows() {
  }

  static List<List<String>> parse(String text) {
    List<List<String>> rows = new ArrayList<>();
    List<String> row = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
        continue;
      }
      switch (c) {
        case '"' -> {
          quoted = true;
          any = true;
        }
        case ',' -> {
          row.add(field.toString());
          field.setLength(0);
          any = true;
        }
        case '\r' -> {
        }
        case '\n' -> {
          if (any || field.length() > 0) {
            row.add(field.toString());
            rows.add(row);
          }
          row = new ArrayList<>();
          field.setLength(0);
          any = false;
        }
        default -> {
          field.append(c);
          any = true;
        }
      }
    }
    if (quoted) {
      throw new IllegalArgumentException("Unterminated quoted field");
    }
    if (any || field.length() > 0) {
      row.add(field.toString());
      rows.add(row);
    }
    return rows;
  }
}
