package dev.svc.bench.hardware;

import java.nio.file.Path;

/**
 * Samples memory in use every {@link #INTERVAL_MS} ms during a benchmark: the GPUs' memory through
 * nvidia-smi; on unified-memory hosts (nvidia-smi reports no GPU memory of its own) the system's
 * memory; with no GPU, nothing, and the reason.
 */
public interface MemoryTracker {

  long INTERVAL_MS = 100;

  /** Starts sampling; {@link Tracking#stop()} ends it and returns the samples. */
  Tracking start();

  /** A sampling in progress. */
  interface Tracking {
    /** How many samples have been taken so far. */
    int count();

    MemoryTrace stop();

    /** A tracking that takes no samples, for the reason given. */
    static Tracking unavailable(String reason) {
      return new Tracking() {
        @Override
        public int count() {
          return 0;
        }

        @Override
        public MemoryTrace stop() {
          return MemoryTrace.unavailable(reason);
        }
      };
    }
  }

  /** Picks the tracker for this host (blocking: runs nvidia-smi once). */
  static MemoryTracker detect(NvidiaSmi smi) {
    return detect(smi, smi.gpus());
  }

  /** Picks the tracker for the GPUs {@code listing} found (read once for a whole run). */
  static MemoryTracker detect(NvidiaSmi smi, NvidiaSmi.Listing listing) {
    if (listing.gpus().isEmpty()) {
      String reason = "no GPU: " + listing.problem();
      return () -> Tracking.unavailable(reason);
    }
    boolean unified = listing.gpus().stream().allMatch(g -> g.memoryUsedMb() == null || g.memoryTotalMb() == null);
    if (unified) {
      return new SystemMemoryTracker(Path.of("/proc/meminfo"),
          "unified memory: " + smi.command() + " reports no GPU memory of its own, so system memory is sampled");
    }
    return new NvidiaSmiTracker(smi.command(), listing.gpus().size());
  }
}
