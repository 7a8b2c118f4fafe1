package dev.svc.core.events;

/** SSE event names of protocol.md section 7. */
public final class EventType {

  public static final String STATUS = "status";
  public static final String LOG = "log";
  public static final String CAMPAIGN_CREATED = "campaign_created";
  public static final String AGENT_STATUS = "agent_status";
  public static final String RESULT = "result";

  private EventType() {
  }
}
