package dev.svc.engines.lifecycle;

import java.util.Objects;

/**
 * Whether this host has NVIDIA GPUs a container can be given, and what showed it.
 *
 * @param present whether GPUs were found
 * @param detail what was found, or why no GPU counts as present (shown in the run's log)
 */
public record GpuAvailability(boolean present, String detail) {

  public GpuAvailability {
    Objects.requireNonNull(detail, "detail");
  }

  public static GpuAvailability found(String detail) {
    return new GpuAvailability(true, detail);
  }

  public static GpuAvailability none(String reason) {
    return new GpuAvailability(false, reason);
  }
}
