package dev.svc.server.http;

import dev.svc.core.domain.QuickTestStatus;
import dev.svc.server.store.QuickTestStore.EndedBy;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.server.store.StoredQuickTest;
import io.vertx.core.Future;

/** The API's view of status changes: a move or cancel that cannot happen is a 409 with the reason. */
final class QuickTestTransitions {

  static final String CANCELLED = TestTransitions.CANCELLED;

  private QuickTestTransitions() {
  }

  /** Cancels an active test (failed, "Cancelled by user"; the agent holding it is told to stop). */
  static Future<Void> cancel(TestTransitions transitions, StoredQuickTest test) {
    QuickTestStatus current = QuickTestStatus.parse(test.status()).orElseThrow();
    if (current.isTerminal()) {
      throw ApiError.conflict("Quick test " + test.id() + " is already " + current.wireName());
    }
    return transitions.fail(test.id(), CANCELLED).map(cancelled -> {
      if (!cancelled) {
        throw ApiError.conflict("Quick test " + test.id() + " finished meanwhile");
      }
      return null;
    });
  }

  static Future<QuickTestStatus> move(TestTransitions transitions, StoredQuickTest test, QuickTestStatus from,
      QuickTestStatus to, String error) {
    String id = test.id();
    if (!from.canMoveTo(to)) {
      throw ApiError.conflict("Quick test " + id + " cannot move from " + from.wireName() + " to " + to.wireName());
    }
    return transitions.move(test, from, to, error, EndedBy.AGENT).map(moved -> {
      if (!moved) {
        throw ApiError.conflict("Quick test " + id + " changed status meanwhile; read it again");
      }
      return to;
    });
  }
}
