package dev.svc.server.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Failed authentication per client address, as a token bucket: an address may fail {@code burst}
 * times in a row, and earns one more try every {@code refillMs}. An address whose bucket is empty
 * is locked out: its wrong credentials get 429 until the next try is earned. A valid credential is
 * never refused, so that guesses from a shared address (a NAT, a proxy, the agent's own host)
 * cannot keep real agents and operators out; guessing a token stays hopeless because the server's
 * tokens are 256-bit random values. The table keeps at most {@code maxAddresses} addresses (the
 * least recently failing are forgotten first), so a flood of addresses cannot grow it without
 * bound; an address with a full bucket again is dropped.
 *
 * <p>Each lock-out is counted, and {@link #takeEnded} hands over those that ended with how many
 * requests they refused, so that a lock-out is logged once when it begins and once when it ends.
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
  private final List<Ended> ended = new ArrayList<>();
  private long failures;
  private long lockouts;
  private long throttled;

  /** A lock-out that ended: the address, how long it lasted and how many requests it refused. */
  public record Ended(String address, long lockedMs, long refused) {
  }

  /** The throttle's figures since start, and the addresses locked out now. */
  public record Counts(long failures, long lockouts, long throttled, int lockedNow) {
  }

  /** Tokens left, when they were last counted, and the lock-out in progress (lockedAt < 0: none). */
  private static final class Bucket {
    double tokens;
    long at;
    long lockedAt = -1;
    long refused;

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

  public int burst() {
    return burst;
  }

  public long refillSeconds() {
    return Math.max(1, TimeUnit.NANOSECONDS.toSeconds(refillNanos));
  }

  /** Seconds until {@code address} may try again; 0 when it is not locked out. */
  public synchronized long retryAfterSeconds(String address) {
    Bucket bucket = refreshed(address);
    if (bucket == null || bucket.tokens >= 1) {
      return 0;
    }
    long waitNanos = (long) Math.ceil((1 - bucket.tokens) * refillNanos);
    return Math.max(1, TimeUnit.NANOSECONDS.toSeconds(waitNanos + TimeUnit.SECONDS.toNanos(1) - 1));
  }

  /** Records one failure of {@code address}; true when this failure locked the address out. */
  public synchronized boolean failure(String address) {
    failures++;
    Bucket bucket = refreshed(address);
    if (bucket == null) {
      bucket = new Bucket(burst, clock.getAsLong());
      buckets.put(address, bucket);
    }
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    if (bucket.tokens < 1 && bucket.lockedAt < 0) {
      bucket.lockedAt = bucket.at;
      bucket.refused = 0;
      lockouts++;
      return true;
    }
    return false;
  }

  /** Counts a request of {@code address} refused with 429 during its lock-out. */
  public synchronized void throttled(String address) {
    throttled++;
    Bucket bucket = buckets.get(address);
    if (bucket != null) {
      bucket.refused++;
    }
  }

  /** The lock-outs that ended since the last call (the address earned a try again), oldest first. */
  public synchronized List<Ended> takeEnded() {
    for (Map.Entry<String, Bucket> entry : List.copyOf(buckets.entrySet())) {
      if (entry.getValue().lockedAt >= 0) {
        refresh(entry.getKey(), entry.getValue());
      }
    }
    List<Ended> out = List.copyOf(ended);
    ended.clear();
    return out;
  }

  public synchronized Counts counts() {
    int locked = (int) buckets.values().stream().filter(b -> b.lockedAt >= 0).count();
    return new Counts(failures, lockouts, throttled, locked);
  }

  /** How many addresses the table holds now. */
  public synchronized int size() {
    return buckets.size();
  }

  private Bucket refreshed(String address) {
    Bucket bucket = buckets.get(address);
    return bucket == null ? null : refresh(address, bucket);
  }

  /** Refills a bucket; a lock-out whose address earned a try ends; a full bucket is dropped (null). */
  private Bucket refresh(String address, Bucket bucket) {
    long now = clock.getAsLong();
    bucket.tokens = Math.min(burst, bucket.tokens + (double) (now - bucket.at) / refillNanos);
    bucket.at = now;
    if (bucket.lockedAt >= 0 && bucket.tokens >= 1) {
      if (ended.size() < maxAddresses) {
        ended.add(new Ended(address, TimeUnit.NANOSECONDS.toMillis(now - bucket.lockedAt), bucket.refused));
      }
      bucket.lockedAt = -1;
    }
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
