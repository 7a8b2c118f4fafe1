package dev.svc.core.events;

/**
 * Event-bus addresses: an integration API for other Vert.x programs (every address and message
 * shape is listed in docs/events.md).
 */
public final class EventAddresses {

  /** Request {@code {"source_id","type","data"}}: store the event with the next id, publish it, reply with it. */
  public static final String PUBLISH = "svc.events.publish";

  /** Every stored event: {@code {"id","source_id","type","data","created_at"}}. */
  public static final String ALL = "svc.events";

  /** Prefix of the per-source address: {@code svc.events.<source_id>} carries that source's events. */
  public static final String SOURCE_PREFIX = "svc.events.";

  /** Request {@code {"agent_id","metrics":{…}}} → reply {@code {"commands":[…],"settings":{…}}}. */
  public static final String AGENT_HEARTBEAT = "svc.agents.heartbeat";

  /** Send {@code {"test_id"}}: simulate the quick test of a test agent. */
  public static final String SIMULATOR_RUN = "svc.simulator.run";

  /**
   * Publish {@code {"test_id","outcome"}} when a simulation ends (completed, stopped, failed,
   * interrupted); not stored — a notice for whoever waits on a simulation.
   */
  public static final String SIMULATOR_FINISHED = "svc.simulator.finished";

  /** Send {@code {"campaign_id"}}: run a queued campaign. */
  public static final String CAMPAIGN_LAUNCH = "svc.campaigns.launch";

  /** Send {@code {"campaign_id"}}: a campaign was cancelled; stop its loop. */
  public static final String CAMPAIGN_CANCEL = "svc.campaigns.cancel";

  /** Request {@code {}} → reply: run the housekeeping now (or join the run in progress); the reply is its counts. */
  public static final String HOUSEKEEPING_RUN = "svc.housekeeping.run";

  /**
   * Publish: the counts of every finished housekeeping run
   * {@code {"summaries","events","quick_test_logs","campaign_logs","commands"}}.
   */
  public static final String HOUSEKEEPING_DONE = "svc.housekeeping.done";

  private EventAddresses() {
  }

  public static String forSource(String sourceId) {
    return SOURCE_PREFIX + sourceId;
  }
}
