package dev.svc.core.events;

/**
 * Event-bus addresses: an integration API for other Vert.x programs (listed in docs/events.md).
 * Every event is persisted with an increasing id before it is published.
 */
public final class EventAddresses {

  /** Every persisted event: {@code {"id","source_id","type","data","created_at"}}. */
  public static final String ALL = "svc.events";

  /** Prefix of the per-source address: {@code svc.events.<source_id>} carries that source's events. */
  public static final String SOURCE_PREFIX = "svc.events.";

  private EventAddresses() {
  }

  public static String forSource(String sourceId) {
    return SOURCE_PREFIX + sourceId;
  }
}
