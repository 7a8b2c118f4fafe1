package dev.svc.server.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Failed authentication per client address, as a token bucket: an address may fail {@code burst}
 * times in a row, and earns one more try every {@code refillMs}. An address whose bucket is empty
 * gets 429 for every request that presents a credential until the next try is earned — valid
 * ones too, or an attacker could keep guessing and tell a hit by its different answer. Successes
 * cost nothing and requests of other addresses are never held up. The table keeps at most
 * {@code maxAddresses} addresses (the least recently failing are forgotten first), so a flood of
 * addresses cannot grow it without bound; an address with a full bucket again is dropped.
 * Thread-safe: several event loops share it.
 */
public final class AuthThrottle {

  public static final int DEFAULT_BURST = 20;
  public static final long DEFAULT_REFILL_MS = 6_000;
  public static final int DEFAULT_MAX_ADDRESSES = 10_000;

  private final int burst;
  private final long refillNanos;
  private final int maxAddresses;
  private final LongSupplier clock;
  private final LinkedHashMap<String, Bucket> buckets;

  /** Tokens left and when they were last counted. */
  private static final class Bucket {
    double tokens;
    long at;

    Bucket(double tokens, long at) {
      this.tokens = tokens;
      this.at = at;
    }
  }

  public AuthThrottle(int burst, long refillMs, int maxAddresses, LongSupplier nanoClock) {
    if (burst < 1 || refillMs < 1 || maxAddresses < 1) {
      throw new IllegalArgumentException("burst, refill and table size must be positive");
    }
    this.burst = burst;
    this.refillNanos = TimeUnit.MILLISECONDS.toNanos(refillMs);
    this.maxAddresses = maxAddresses;
    this.clock = nanoClock;
    this.buckets = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
        return size() > AuthThrottle.this.maxAddresses;
      }
    };
  }

  /** The defaults, or {@code burst} failures from the environment (SVC_AUTH_MAX_FAILURES). */
  public static AuthThrottle withBurst(int burst) {
    return new AuthThrottle(burst, DEFAULT_REFILL_MS, DEFAULT_MAX_ADDRESSES, System::nanoTime);
  }

  /** Seconds until {@code address} may try again; 0 when it may now. */
  public synchronized long retryAfterSeconds(String address) {
    Bucket bucket = refreshed(address);
    if (bucket == null || bucket.tokens >= 1) {
      return 0;
    }
    long waitNanos = (long) Math.ceil((1 - bucket.tokens) * refillNanos);
    return Math.max(1, TimeUnit.NANOSECONDS.toSeconds(waitNanos + TimeUnit.SECONDS.toNanos(1) - 1));
  }

  /** Records one failure of {@code address}. */
  public synchronized void failure(String address) {
    Bucket bucket = refreshed(address);
    if (bucket == null) {
      bucket = new Bucket(burst, clock.getAsLong());
      buckets.put(address, bucket);
    }
    bucket.tokens = Math.max(0, bucket.tokens - 1);
  }

  /** How many addresses the table holds now. */
  public synchronized int size() {
    return buckets.size();
  }

  private Bucket refreshed(String address) {
    Bucket bucket = buckets.get(address);
    if (bucket == null) {
      return null;
    }
    long now = clock.getAsLong();
    bucket.tokens = Math.min(burst, bucket.tokens + (double) (now - bucket.at) / refillNanos);
    bucket.at = now;
    if (bucket.tokens >= burst) {
      buckets.remove(address);
      return null;
    }
    return bucket;
  }

  /**
   * The key of a client address: IPv4 as it is, IPv6 by its /64 prefix (one host usually holds a
   * whole /64, so counting single IPv6 addresses would let it rotate through them).
   */
  public static String key(String address) {
    if (address == null) {
      return "unknown";
    }
    String a = address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1) : address;
    if (a.startsWith("::ffff:") && a.indexOf('.') > 0) {
      return a.substring(7);
    }
    if (a.indexOf(':') < 0) {
      return a;
    }
    try {
      byte[] bytes = java.net.InetAddress.getByName(a.replaceFirst("%.*$", "")).getAddress();
      if (bytes.length != 16) {
        return a;
      }
      StringBuilder prefix = new StringBuilder();
      for (int i = 0; i < 8; i += 2) {
        prefix.append(Integer.toHexString(((bytes[i] & 0xff) << 8) | (bytes[i + 1] & 0xff))).append(':');
      }
      return prefix.append(":/64").toString();
    } catch (java.net.UnknownHostException e) {
      return a;
    }
  }
}
