package dev.svc.server.cluster;

import java.nio.file.Path;

/**
 * How a node of a clustered deployment joins the others.
 *
 * @param hazelcastConfig the Hazelcast XML (the installation's {@code conf/cluster.xml} by default);
 *     null takes Vert.x's defaults limited to 127.0.0.1, as tests and a run from a build tree use
 * @param host the address this node's event bus binds and announces to the other nodes
 * @param claimTtlMs how long the singletons' claim lasts without a renewal: a dead holder's
 *     singletons start elsewhere within this plus one renewal
 * @param claimRenewMs how often the holder renews the claim and the others try to take it
 */
public record ClusterSettings(Path hazelcastConfig, String host, long claimTtlMs, long claimRenewMs) {

  public static final long DEFAULT_CLAIM_TTL_MS = 15_000;
  public static final long DEFAULT_CLAIM_RENEW_MS = 3_000;

  public ClusterSettings {
    if (claimRenewMs <= 0 || claimTtlMs < 2 * claimRenewMs) {
      throw new IllegalArgumentException("the claim must last at least two renewals");
    }
  }

  public static ClusterSettings of(Path hazelcastConfig, String host) {
    return new ClusterSettings(hazelcastConfig, host == null ? "127.0.0.1" : host, DEFAULT_CLAIM_TTL_MS,
        DEFAULT_CLAIM_RENEW_MS);
  }

  public ClusterSettings withClaim(long ttlMs, long renewMs) {
    return new ClusterSettings(hazelcastConfig, host, ttlMs, renewMs);
  }
}
