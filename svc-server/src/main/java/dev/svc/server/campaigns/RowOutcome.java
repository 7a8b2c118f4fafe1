package dev.svc.server.campaigns;

import dev.svc.core.domain.QuickTestStatus;

/** How a row's quick test ended: completed or failed, with the error text of a failure. */
record RowOutcome(QuickTestStatus status, String error) {

  boolean succeeded() {
    return status == QuickTestStatus.COMPLETED;
  }

  /** "completed" or "failed: <error>". */
  String describe() {
    return succeeded() || error == null || error.isBlank() ? status.wireName() : status.wireName() + ": " + error;
  }
}
