package dev.svc.server.web;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The status filter chips of a list page: "all" first, then one per status, the active one marked. */
final class StatusChips {

  private StatusChips() {
  }

  /** {@code status} ("" for all), {@code label}, {@code active}, {@code url} per chip. */
  static List<Map<String, Object>> of(List<String> statuses, String active, String path) {
    List<Map<String, Object>> out = new ArrayList<>();
    out.add(chip("", "all", active, path));
    statuses.forEach(s -> out.add(chip(s, s, active, path + "?status=" + s)));
    return out;
  }

  private static Map<String, Object> chip(String status, String label, String active, String url) {
    Map<String, Object> chip = new LinkedHashMap<>();
    chip.put("status", status);
    chip.put("label", label);
    chip.put("active", status.equals(active));
    chip.put("url", url);
    return chip;
  }
}
