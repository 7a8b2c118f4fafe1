package dev.svc.engines.lifecycle;

/**
 * Tells whether the host has NVIDIA GPUs, so that containers ask for GPUs only where the NVIDIA
 * runtime can give them (Docker refuses a GPU device request elsewhere). Blocking.
 */
@FunctionalInterface
public interface GpuProbe {

  GpuAvailability detect();

  /** The real probe: the NVIDIA driver's {@code /proc} entries, then {@code nvidia-smi -L}. */
  static GpuProbe system() {
    return new NvidiaGpuProbe();
  }
}
