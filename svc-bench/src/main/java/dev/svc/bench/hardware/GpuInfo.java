package dev.svc.bench.hardware;

/**
 * One NVIDIA GPU as {@code nvidia-smi} reports it. Memory figures are {@code null} where the
 * driver answers {@code [N/A]} (unified-memory hosts such as DGX Spark); the compute capability
 * is {@code null} on drivers too old to report it.
 */
public record GpuInfo(int index, String name, Double memoryTotalMb, Double memoryUsedMb, String driverVersion,
    int[] computeCapability) {
}
