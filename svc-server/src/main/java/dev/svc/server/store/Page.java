package dev.svc.server.store;

import java.util.List;

/**
 * One page of rows, the total count behind it and, where more rows follow, the cursor that asks for
 * them (null on the last page).
 */
public record Page<T>(List<T> items, long total, Cursor next) {

  public Page(List<T> items, long total) {
    this(items, total, null);
  }
}
